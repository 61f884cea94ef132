import { invalidField } from "@signalbox/protocol";
import type { FlagSearch, SetFilter } from "../flags/search-filter.js";
import type { SearchQuery } from "./schemas.js";

// How the feature search reads its filters, as the reference reads them: `OPERATOR:a,b`.

interface Condition {
  operator: string;
  values: string[];
}

const CONDITION =
  /^(IS|IS_NOT|IS_ANY_OF|IS_NONE_OF|INCLUDE|DO_NOT_INCLUDE|INCLUDE_ALL_OF|INCLUDE_ANY_OF|EXCLUDE_IF_ANY_OF|EXCLUDE_ALL|IS_BEFORE|IS_ON_OR_AFTER):(.+)$/;

function condition(text: string | undefined): Condition | undefined {
  const match = text?.match(CONDITION);
  return match
    ? { operator: match[1]!, values: match[2]!.split(",").map((value) => value.trim()) }
    : undefined;
}

const excludes = (operator: string) => operator === "IS_NOT" || operator === "IS_NONE_OF";

function setFilter(text: string | undefined): SetFilter | undefined {
  const parsed = condition(text);
  return parsed && { include: !excludes(parsed.operator), values: parsed.values };
}

function dateFilter(field: string, text: string | undefined) {
  const parsed = condition(text);
  if (!parsed) return undefined;
  const date = new Date(`${parsed.values[0]}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) throw invalidField(field, `${field}: ${parsed.values[0]} is not a date`);
  return { before: parsed.operator === "IS_BEFORE", date };
}

/**
 * Whether a flag's set of names (its tags as `type:value`, its segments) meets a list
 * condition: INCLUDE any, DO_NOT_INCLUDE none, INCLUDE_ALL_OF all, EXCLUDE_ALL not all.
 */
export type ListMatch = (held: ReadonlySet<string>) => boolean;

function listMatch(text: string | undefined): ListMatch | undefined {
  const parsed = condition(text);
  if (!parsed) return undefined;
  const { operator, values } = parsed;
  const any = (held: ReadonlySet<string>) => values.some((value) => held.has(value));
  const all = (held: ReadonlySet<string>) => values.every((value) => held.has(value));
  if (operator === "INCLUDE_ALL_OF") return all;
  if (operator === "EXCLUDE_ALL") return (held) => !all(held);
  if (operator === "DO_NOT_INCLUDE" || operator === "EXCLUDE_IF_ANY_OF") return (held) => !any(held);
  return any;
}

/**
 * Which flags a lifecycle filter keeps, given whether the flag is archived and its stage.
 * The stage `archived` stands for archived flags, the other stages for active ones; the
 * `archived=IS:true` view lists archived flags only, whatever the filter says of active ones.
 */
function lifecyclePlan(
  text: string | undefined,
  archivedView: boolean,
): { archived: FlagSearch["archived"]; stage?: (archived: boolean, stage: string | undefined) => boolean } {
  const parsed = condition(text);
  if (!parsed) return { archived: archivedView ? "archived" : "active" };
  const archivedAsked = parsed.values.includes("archived");
  const stages = parsed.values.filter((value) => value !== "archived");
  const inStages = (stage: string | undefined) => stage !== undefined && stages.includes(stage);
  if (excludes(parsed.operator)) {
    if (archivedView && !archivedAsked) return { archived: "archived" };
    return { archived: "active", stage: (_, stage) => !inStages(stage) };
  }
  if (archivedView) {
    return archivedAsked || stages.length === 0
      ? { archived: "archived" }
      : { archived: "archived", stage: (_, stage) => inStages(stage) };
  }
  if (archivedAsked) return { archived: "any", stage: (archived, stage) => archived || inStages(stage) };
  return { archived: "active", stage: (_, stage) => inStages(stage) };
}

const STATUS = /^(.+):(enabled|disabled)$/;

/** What the search asks of the flags' own tables, and what it asks of the other sub-domains. */
export function searchPlan(query: SearchQuery, hidden: string[]) {
  const lifecycle = lifecyclePlan(query.lifecycle, query.archived === "IS:true");
  const createdBy = setFilter(query.createdBy);
  const sortOrder = query.sortOrder === "desc" ? "desc" : "asc";
  const favorite = condition(query.favorite)?.values;
  const limit = Number(query.limit ?? 50);
  const offset = Number(query.offset ?? 0);
  const filter: FlagSearch = {
    terms: (query.query ?? "")
      .split(",")
      .map((term) => term.trim())
      .filter(Boolean),
    hidden,
    archived: lifecycle.archived,
    projects: setFilter(query.project),
    types: setFilter(query.type),
    staleness: setFilter(query.state),
    // Ids that are no user's id match no flag.
    createdBy: createdBy && {
      include: createdBy.include,
      values: createdBy.values.map(Number).filter((id) => Number.isInteger(id) && Math.abs(id) < 2 ** 31),
    },
    createdAt: dateFilter("createdAt", query.createdAt),
    lastSeenAt: dateFilter("lastSeenAt", query.lastSeenAt),
    statuses: (query.status ?? []).flatMap((text) => {
      const match = text.match(STATUS);
      return match ? [{ environment: match[1]!, enabled: match[2] === "enabled" }] : [];
    }),
    sortBy: query.sortBy ?? "",
    sortOrder,
  };
  return {
    filter,
    tags: listMatch(query.tag),
    segments: listMatch(query.segment),
    stage: lifecycle.stage,
    // Both true and false, or neither, keep every flag.
    favorite:
      favorite && favorite.includes("true") !== favorite.includes("false")
        ? favorite.includes("true")
        : undefined,
    favoritesFirst: query.favoritesFirst === "true",
    // Out-of-range paging falls back to the defaults, as the reference's does.
    offset: offset > 0 ? Math.floor(offset) : 0,
    limit: limit > 0 && limit <= 100 ? Math.floor(limit) : 50,
  };
}
