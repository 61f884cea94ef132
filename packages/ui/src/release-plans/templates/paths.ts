/** Where the release templates screens live. */
export const TEMPLATES_PATH = "/release-templates";

export const templatePath = (id: string) => `${TEMPLATES_PATH}/${encodeURIComponent(id)}`;
