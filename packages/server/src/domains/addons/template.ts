import Mustache from "mustache";
import type { StoredEvent } from "../events/schemas.js";
import { describeEvent, markdownBold } from "./messages.js";

/**
 * Renders a body template with Mustache, as the reference does. Its view: `event` (the
 * stored event), `eventJson` (the event as JSON), `eventMarkdown` (the sentence chat
 * services get), and shortcuts to the fields people use most (`feature`, `project`,
 * `environment`, `user`, `type`).
 *
 * Mustache escapes for HTML by default, which would turn a quote into `&quot;` in a JSON
 * body; in a JSON body values are escaped as a JSON string's content instead, so that
 * `"{{event.data.description}}"` stays valid JSON whatever the description holds. Other
 * bodies get the values as they are. No partials: a template cannot reach anything else.
 */
export function renderTemplate(template: string, event: StoredEvent, json: boolean): string {
  const view = {
    event,
    eventJson: JSON.stringify(event),
    eventMarkdown: describeEvent(event, markdownBold),
    feature: event.featureName ?? "",
    project: event.project ?? "",
    environment: event.environment ?? "",
    user: event.createdBy,
    type: event.type,
  };
  const escapeValue = json ? (value: unknown) => JSON.stringify(String(value)).slice(1, -1) : String;
  return Mustache.render(template, view, {}, { escape: escapeValue });
}

/** A template that Mustache cannot parse, said as the error to show; undefined when it parses. */
export function templateProblem(template: string): string | undefined {
  try {
    Mustache.parse(template);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
