const DAY_MS = 86_400_000;

/** A flag's creation and the first time it was switched on in a production environment. */
export interface FirstEnabled {
  project: string;
  name: string;
  created: Date;
  enabled: Date;
}

/** Whole days from creation to production, as the reference counts them (rounded down). */
export const daysToProduction = (flag: FirstEnabled): number =>
  Math.floor((flag.enabled.getTime() - flag.created.getTime()) / DAY_MS);

/**
 * The reference's project average: the mean of the whole days, to one decimal; 0 when no
 * flag reached production, and 0.1 when some did on their first day, so that "none yet"
 * and "at once" differ.
 */
export function averageTimeToProduction(flags: FirstEnabled[]): number {
  if (flags.length === 0) return 0;
  const days = flags.reduce((sum, flag) => sum + daysToProduction(flag), 0);
  const average = Number((days / flags.length).toFixed(1));
  return average === 0 ? 0.1 : average;
}
