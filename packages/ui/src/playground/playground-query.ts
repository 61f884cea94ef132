import { skipToken, useQuery } from "@tanstack/react-query";
import { api, type paths, unwrap } from "../api/client";
import { queryKeys } from "../query-keys";

type Advanced = paths["/api/admin/playground/advanced"]["post"];
export type PlaygroundRequest = Advanced["requestBody"]["content"]["application/json"];
export type PlaygroundAnswer = Advanced["responses"][200]["content"]["application/json"];
export type PlaygroundFlag = PlaygroundAnswer["features"][number];
/** One flag evaluated for one context in one environment, with the reasons. */
export type Evaluation = PlaygroundFlag["environments"][string][number];

/** The context fields every SDK has, asked for by name; any other field is one of `properties`. */
export const STANDARD_FIELDS = ["appName", "userId", "sessionId", "remoteAddress", "currentTime"] as const;
export type StandardField = (typeof STANDARD_FIELDS)[number];

/** The application name evaluated for when none is given: the service needs one. */
export const DEFAULT_APP_NAME = "playground";

/** What the playground form holds; the address holds the same, so a result can be shared. */
export interface PlaygroundInput {
  environments: string[];
  /** None: every project. */
  projects: string[];
  context: Record<StandardField, string>;
  properties: { name: string; value: string }[];
}

const CONTEXT_PREFIX = "context.";
const isStandard = (name: string): name is StandardField =>
  (STANDARD_FIELDS as readonly string[]).includes(name);

/** The form as the address has it: `environment` and `project` repeated, `context.<field>` for each value. */
export function inputFromParams(params: URLSearchParams): PlaygroundInput {
  const context = Object.fromEntries(
    STANDARD_FIELDS.map((field) => [field, ""]),
  ) as PlaygroundInput["context"];
  const properties: PlaygroundInput["properties"] = [];
  for (const [key, value] of params) {
    if (!key.startsWith(CONTEXT_PREFIX)) continue;
    const name = key.slice(CONTEXT_PREFIX.length);
    if (isStandard(name)) context[name] = value;
    else if (name) properties.push({ name, value });
  }
  return {
    environments: params.getAll("environment"),
    projects: params.getAll("project"),
    context,
    properties,
  };
}

export function paramsFromInput(input: PlaygroundInput): URLSearchParams {
  const params = new URLSearchParams();
  for (const environment of input.environments) params.append("environment", environment);
  for (const project of input.projects) params.append("project", project);
  for (const field of STANDARD_FIELDS) {
    if (input.context[field]) params.append(`${CONTEXT_PREFIX}${field}`, input.context[field]);
  }
  for (const { name, value } of input.properties) {
    if (name.trim()) params.append(`${CONTEXT_PREFIX}${name.trim()}`, value);
  }
  return params;
}

/**
 * A value as the service reads it, a comma-separated list of the values to try, without the
 * spaces people type after commas (the service would compare " eu-2") and without empty items.
 */
const valueList = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)
    .join(",");

/** The request the form stands for; null until there is an environment to evaluate in. */
export function requestFromInput(input: PlaygroundInput): PlaygroundRequest | null {
  if (input.environments.length === 0) return null;
  const { appName, currentTime, ...ids } = input.context;
  const context: PlaygroundRequest["context"] = { appName: valueList(appName) || DEFAULT_APP_NAME };
  for (const [field, value] of Object.entries(ids)) {
    const values = valueList(value);
    if (values) context[field] = values;
  }
  if (currentTime) context.currentTime = currentTime;
  const properties = Object.fromEntries(
    input.properties
      .filter(({ name }) => name.trim())
      .map(({ name, value }) => [name.trim(), valueList(value)]),
  );
  if (Object.keys(properties).length > 0) context.properties = properties;
  return {
    environments: input.environments,
    projects: input.projects.length > 0 ? input.projects : "*",
    context,
  };
}

/** Every flag evaluated for the request; nothing is asked until there is one. */
export function usePlayground(request: PlaygroundRequest | null) {
  return useQuery({
    queryKey: queryKeys.playground.result(request),
    queryFn: request
      ? () => unwrap(api.POST("/api/admin/playground/advanced", { body: request }))
      : skipToken,
    // A result stays what was asked for until asked again: refetching on focus would
    // change it under someone reading the reasons.
    refetchOnWindowFocus: false,
  });
}
