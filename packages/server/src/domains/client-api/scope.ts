import type { TokenActor } from "../../access/actor.js";
import type { ScopeQuery } from "./schemas.js";

/** Which flags one SDK request may see: its token decides, query parameters only narrow. */
export interface Scope {
  environment: string;
  /** `["*"]` for every project. */
  projects: string[];
  namePrefix?: string;
  /** `type:value` pairs; a flag with any of them is listed. */
  tags: string[];
}

const many = (value: string | string[] | undefined) => (value === undefined ? [] : [value].flat());

// The reference resolves a request without any environment to `default`.
const FALLBACK_ENVIRONMENT = "default";

// Most SDKs send no filters: their scope is their token's, made once per token (the token
// cache hands out the same actor while it is valid) rather than on every poll.
const unfiltered = new WeakMap<TokenActor, Scope>();

export function scopeFor(token: TokenActor, query: ScopeQuery): Scope {
  for (const _ in query) return narrowed(token, query);
  let scope = unfiltered.get(token);
  if (!scope) {
    scope = narrowed(token, {});
    unfiltered.set(token, scope);
  }
  return scope;
}

function narrowed(token: TokenActor, query: ScopeQuery): Scope {
  const environment =
    token.environment !== "*" ? token.environment : (query.environment ?? FALLBACK_ENVIRONMENT);
  const asked = many(query.project);
  let projects = token.projects;
  if (projects.includes("*")) projects = asked.length > 0 ? asked : ["*"];
  else if (asked.length > 0) projects = projects.filter((project) => asked.includes(project));
  return { environment, projects, namePrefix: query.namePrefix || undefined, tags: many(query.tag) };
}

export const inScope = (scope: Scope, feature: { name: string; project: string }) =>
  (scope.projects[0] === "*" || scope.projects.includes(feature.project)) &&
  (!scope.namePrefix || feature.name.startsWith(scope.namePrefix));

const keys = new WeakMap<Scope, { inline?: string; apart?: string }>();

/**
 * What tells one listing from another: the scope, and whether segments are inlined. Worked
 * out once per scope object, so that a poll looks its listing up by a string already hashed.
 */
export function listingKey(scope: Scope, inline: boolean): string {
  let made = keys.get(scope);
  if (!made) {
    made = {};
    keys.set(scope, made);
  }
  const form = inline ? "inline" : "apart";
  made[form] ??= JSON.stringify([
    scope.environment,
    scope.projects,
    scope.namePrefix ?? "",
    scope.tags,
    inline,
  ]);
  return made[form];
}
