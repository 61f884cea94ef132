/** Values a column must be among (include) or not. */
export interface SetFilter<T = string> {
  include: boolean;
  values: T[];
}

/** What the feature search asks of the flags' own tables. */
export interface FlagSearch {
  /** Any of them in the name or description, case aside. */
  terms: string[];
  /** Projects hidden from the caller. */
  hidden: string[];
  archived: "active" | "archived" | "any";
  projects?: SetFilter | undefined;
  types?: SetFilter | undefined;
  /** Values `active` (not stale), `stale` and `potentially-stale` (not stale yet). */
  staleness?: SetFilter | undefined;
  createdBy?: SetFilter<number> | undefined;
  createdAt?: { before: boolean; date: Date } | undefined;
  lastSeenAt?: { before: boolean; date: Date } | undefined;
  /** Enabled or disabled in an environment: a flag meeting any of them matches. */
  statuses: { environment: string; enabled: boolean }[];
  sortBy: string;
  sortOrder: "asc" | "desc";
}
