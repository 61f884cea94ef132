import type { StoredEvent } from "../events/schemas.js";

/** How a chat service writes bold text: Slack's mrkdwn with *, Markdown (Teams, Datadog) with **. */
export type Bold = (text: string) => string;

export const markdownBold: Bold = (text) => `**${text}**`;
export const slackBold: Bold = (text) => `*${text}*`;

const field = (value: unknown, key: string): string | undefined => {
  if (typeof value !== "object" || value === null) return undefined;
  const found = (value as Record<string, unknown>)[key];
  return typeof found === "string" ? found : undefined;
};

// What each event says happened, after "<who> ". {flag}, {env}, {project} and {strategy}
// are filled in; an event without its own line gets the generic one.
const SENTENCES: Record<string, string> = {
  "feature-created": "created feature flag {flag} in project {project}",
  "feature-metadata-updated": "updated the metadata of feature flag {flag} in project {project}",
  "feature-archived": "archived feature flag {flag} in project {project}",
  "feature-revived": "revived feature flag {flag} in project {project}",
  "feature-deleted": "deleted feature flag {flag} from project {project}",
  "feature-stale-on": "marked feature flag {flag} in project {project} as stale",
  "feature-stale-off": "marked feature flag {flag} in project {project} as active",
  "feature-potentially-stale-on": "feature flag {flag} in project {project} was marked as potentially stale",
  "feature-environment-enabled": "enabled feature flag {flag} in the {env} environment of project {project}",
  "feature-environment-disabled":
    "disabled feature flag {flag} in the {env} environment of project {project}",
  "feature-strategy-add": "added strategy {strategy} to feature flag {flag} in the {env} environment",
  "feature-strategy-update": "updated strategy {strategy} of feature flag {flag} in the {env} environment",
  "feature-strategy-remove": "removed strategy {strategy} from feature flag {flag} in the {env} environment",
  "strategy-order-changed": "reordered the strategies of feature flag {flag} in the {env} environment",
  "feature-variants-updated": "updated the variants of feature flag {flag} in project {project}",
  "feature-environment-variants-updated":
    "updated the variants of feature flag {flag} in the {env} environment",
  "feature-project-change": "moved feature flag {flag} to project {project}",
  "feature-tagged": "tagged feature flag {flag} in project {project}",
  "feature-untagged": "removed a tag from feature flag {flag} in project {project}",
  "feature-completed": "marked feature flag {flag} in project {project} as completed",
  "feature-uncompleted": "marked feature flag {flag} in project {project} as not completed",
  "feature-dependency-added": "added a dependency to feature flag {flag} in project {project}",
  "feature-dependency-removed": "removed a dependency from feature flag {flag} in project {project}",
  "release-plan-milestone-started":
    "started a milestone of the release plan of feature flag {flag} in the {env} environment",
  "release-plan-progressions-paused":
    "paused the release plan of feature flag {flag} in the {env} environment",
  "release-plan-progressions-resumed":
    "resumed the release plan of feature flag {flag} in the {env} environment",
  "safeguard-triggered":
    "stopped the release of feature flag {flag} in the {env} environment: a safeguard triggered",
};

/** A one-line account of an event for people: who did what to which flag, where. */
export function describeEvent(event: StoredEvent, bold: Bold): string {
  const strategy = field(event.data, "name") ?? field(event.preData, "name") ?? "";
  const sentence = SENTENCES[event.type];
  if (sentence && (event.featureName || !sentence.includes("{flag}"))) {
    const filled = sentence
      .replaceAll("{flag}", bold(event.featureName ?? ""))
      .replaceAll("{project}", bold(event.project ?? ""))
      .replaceAll("{env}", bold(event.environment ?? ""))
      .replaceAll(" {strategy}", strategy ? ` ${bold(strategy)}` : "");
    return `${event.createdBy} ${filled}`;
  }
  const where = [
    event.featureName && `for feature flag ${bold(event.featureName)}`,
    event.project && `in project ${bold(event.project)}`,
    event.environment && `in the ${bold(event.environment)} environment`,
  ].filter(Boolean);
  return [`${event.createdBy} triggered ${bold(event.type)}`, ...where].join(" ");
}
