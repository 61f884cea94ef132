const DAY_MS = 86_400_000;

/**
 * How many days a flag of each type is expected to live, as the reference's feature types
 * say; kill switches and permissions are meant to stay. The reference's newer `sunset` type
 * (90 days) is not a type flags can have here: the spec's type list does not name it.
 */
export const EXPECTED_LIFETIME_DAYS: Readonly<Record<string, number | null>> = {
  release: 40,
  experiment: 40,
  operational: 7,
  "kill-switch": null,
  permission: null,
};

/** For each type with a lifetime, the creation time before which a flag has outlived it. */
export function overdueCutoffs(now: Date): { type: string; createdBefore: Date }[] {
  return Object.entries(EXPECTED_LIFETIME_DAYS).flatMap(([type, days]) =>
    days === null ? [] : [{ type, createdBefore: new Date(now.getTime() - days * DAY_MS) }],
  );
}
