import type { ProjectFlag } from "./queries";

/** What the flags tab narrows the list to; null: any. */
export interface FlagFilter {
  /** Part of the name or description, any case. */
  text: string;
  type: string | null;
  /** A tag as `type:value`. */
  tag: string | null;
  state: "active" | "stale" | null;
  stage: string | null;
}

export const NO_FILTER: FlagFilter = { text: "", type: null, tag: null, state: null, stage: null };

export type SortKey = "name" | "createdAt" | "lastSeenAt" | "type";

export interface Sort {
  key: SortKey;
  descending: boolean;
}

export const tagLabel = (tag: { type: string; value: string }) => `${tag.type}:${tag.value}`;

export function filterFlags(flags: readonly ProjectFlag[], filter: FlagFilter): ProjectFlag[] {
  const text = filter.text.trim().toLowerCase();
  return flags.filter(
    (flag) =>
      (!text ||
        flag.name.toLowerCase().includes(text) ||
        (flag.description ?? "").toLowerCase().includes(text)) &&
      (!filter.type || flag.type === filter.type) &&
      (!filter.tag || flag.tags.some((tag) => tagLabel(tag) === filter.tag)) &&
      (!filter.state || flag.stale === (filter.state === "stale")) &&
      (!filter.stage || flag.lifecycle?.stage === filter.stage),
  );
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

const compare: Record<SortKey, (a: ProjectFlag, b: ProjectFlag) => number> = {
  name: (a, b) => collator.compare(a.name, b.name),
  type: (a, b) => collator.compare(a.type, b.type),
  createdAt: (a, b) => a.createdAt.localeCompare(b.createdAt),
  lastSeenAt: (a, b) => (a.lastSeenAt ?? "").localeCompare(b.lastSeenAt ?? ""),
};

/**
 * The person's favourites first, as the reference's project page pins them, then in the
 * order asked for; flags never seen stay last either way, and ties keep creation order.
 */
export function sortFlags(flags: readonly ProjectFlag[], sort: Sort): ProjectFlag[] {
  const direction = sort.descending ? -1 : 1;
  return [...flags].sort((a, b) => {
    if (a.favorite !== b.favorite) return a.favorite ? -1 : 1;
    if (sort.key === "lastSeenAt" && !a.lastSeenAt !== !b.lastSeenAt) return a.lastSeenAt ? -1 : 1;
    return direction * compare[sort.key](a, b) || compare.createdAt(a, b);
  });
}
