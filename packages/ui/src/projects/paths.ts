/** Where a project's screens live; its flags tab is the project's own address. */
export const projectPath = (projectId: string, tab?: string) =>
  `/projects/${encodeURIComponent(projectId)}${tab && tab !== "flags" ? `/${tab}` : ""}`;

export const flagPath = (projectId: string, name: string) =>
  `/projects/${encodeURIComponent(projectId)}/features/${encodeURIComponent(name)}`;
