/** A histogram's buckets: cumulative counts by upper bound, `+Inf` for the last. */
export type Buckets = Map<number, number>;

/** Adds buckets written as `{ "<le>": count }` (as stored) into `into`. */
export function addBuckets(into: Buckets, buckets: Record<string, number>): void {
  for (const [le, count] of Object.entries(buckets)) {
    const bound = le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le);
    if (Number.isNaN(bound)) continue;
    into.set(bound, (into.get(bound) ?? 0) + Number(count));
  }
}

/**
 * The q-quantile of a histogram as Prometheus's histogram_quantile estimates it: the bucket
 * the rank falls in, then linear interpolation within it (from 0 for the first bucket when
 * its bound is positive); in the +Inf bucket, the largest finite bound. Undefined without
 * observations or without a +Inf bucket (Prometheus's NaN).
 */
export function histogramQuantile(q: number, buckets: Buckets): number | undefined {
  const sorted = [...buckets].sort(([a], [b]) => a - b);
  if (sorted.length < 2 || sorted[sorted.length - 1]![0] !== Number.POSITIVE_INFINITY) return undefined;
  // Counts that go down (buckets added up from reports with different bounds) are evened out, as Prometheus does.
  let highest = 0;
  const cumulative = sorted.map(([le, count]) => {
    highest = Math.max(highest, count);
    return [le, highest] as const;
  });
  const total = cumulative[cumulative.length - 1]![1];
  if (total <= 0) return undefined;
  if (q <= 0) return Number.NEGATIVE_INFINITY;
  if (q >= 1) return Number.POSITIVE_INFINITY;
  const rank = q * total;
  const index = cumulative.findIndex(([, count]) => count >= rank);
  const [upper, count] = cumulative[index]!;
  if (upper === Number.POSITIVE_INFINITY) return cumulative[cumulative.length - 2]![0];
  if (index === 0 && upper <= 0) return upper;
  const [lower, below] = index === 0 ? [0, 0] : cumulative[index - 1]!;
  const inBucket = count - below;
  return inBucket === 0 ? upper : lower + (upper - lower) * ((rank - below) / inBucket);
}
