// An import cut into requests that each stay under the service's body limit (100 kB unless
// its BODY_LIMIT raises it), for the `signalbox` command. Each flag travels whole, with its
// strategies, environment settings, tags, dependencies and links; what flags share (tag types,
// context fields, segments, anything else in the file) travels with every request. Flags that
// others depend on go first: a dependency sent in a later request finds its parent imported.

type Entry = Record<string, unknown>;

/** An import body: where it goes, and the exported file. */
export interface ImportBody {
  project: string;
  environment: string;
  data: { features: Entry[]; [list: string]: unknown };
}

/** One request of an import, and the flags it carries. */
export interface ImportChunk {
  body: ImportBody;
  flags: string[];
}

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

/** The lists of a file whose entries belong to one flag, and the flag each entry names. */
const PER_FLAG: Record<string, (entry: Entry) => string | undefined> = {
  features: (entry) => text(entry.name),
  featureStrategies: (entry) => text(entry.featureName),
  featureEnvironments: (entry) => text(entry.featureName) ?? text(entry.name),
  featureTags: (entry) => text(entry.featureName),
  dependencies: (entry) => text(entry.feature),
  links: (entry) => text(entry.feature),
};

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** What goes together into one request: a flag's entries, by list. */
interface Unit {
  flag: string | undefined;
  lists: Map<string, Entry[]>;
  /** At least what the entries add to a request's body. */
  size: number;
}

export class ChunkTooLarge extends Error {}

/**
 * The requests that import `body` with none larger than `limit` bytes: one when it fits.
 * Entries that name no flag of the file go with the first request, where the service
 * reports them as it would in a whole file.
 */
export function importChunks(body: ImportBody, limit: number): ImportChunk[] {
  if (bytes(body) <= limit) return [{ body, flags: body.data.features.flatMap((f) => text(f.name) ?? []) }];
  const lists = Object.keys(PER_FLAG).filter((list) => Array.isArray(body.data[list]));
  const shared = Object.fromEntries(Object.entries(body.data).filter(([list]) => !lists.includes(list)));
  const orphans: Unit = { flag: undefined, lists: new Map(), size: 0 };
  const units = new Map<string, Unit>();
  for (const feature of body.data.features) {
    const flag = text(feature.name);
    if (flag !== undefined && !units.has(flag)) units.set(flag, { flag, lists: new Map(), size: 0 });
  }
  for (const list of lists) {
    for (const entry of body.data[list] as Entry[]) {
      const flag = PER_FLAG[list]!(entry);
      const unit = (flag !== undefined && units.get(flag)) || orphans;
      const held = unit.lists.get(list);
      if (held) held.push(entry);
      else unit.lists.set(list, [entry]);
      unit.size += bytes(entry) + 1;
    }
  }
  const parents = new Set(
    ((body.data.dependencies ?? []) as Entry[]).flatMap((entry) =>
      Array.isArray(entry.dependencies)
        ? entry.dependencies.flatMap((parent: Entry) => text(parent.feature) ?? [])
        : [],
    ),
  );
  const ordered = [
    orphans,
    ...[...units.values()].filter((unit) => parents.has(unit.flag!)),
    ...[...units.values()].filter((unit) => !parents.has(unit.flag!)),
  ];
  const empty = bytes({
    ...body,
    data: { ...shared, ...Object.fromEntries(lists.map((list) => [list, []])) },
  });

  const groups: Unit[][] = [];
  let current: Unit[] = [];
  let size = empty;
  for (const unit of ordered) {
    if (empty + unit.size > limit) {
      throw new ChunkTooLarge(
        `${unit.flag === undefined ? "the entries that name no flag of the file" : `flag ${unit.flag}, with what it holds,`} takes ${empty + unit.size} bytes in one request, more than ${limit}`,
      );
    }
    if (current.length > 0 && size + unit.size > limit) {
      groups.push(current);
      current = [];
      size = empty;
    }
    current.push(unit);
    size += unit.size;
  }
  groups.push(current);
  return groups.map((group) => ({
    body: {
      ...body,
      data: {
        ...shared,
        ...Object.fromEntries(
          lists.map((list) => [list, group.flatMap((unit) => unit.lists.get(list) ?? [])]),
        ),
      } as ImportBody["data"],
    },
    flags: group.flatMap((unit) => unit.flag ?? []),
  }));
}
