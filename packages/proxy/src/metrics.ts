import type { MetricsBucket, ToggleCounts } from "@signalbox/protocol";
import type { ReportBudget } from "./budget.js";

interface Counts {
  yes: number;
  no: number;
  variants: Map<string, number>;
}

// Clients choose the names they report: bounds keep a misbehaving one from growing memory without end.
const MAX_TOGGLES = 10_000;
const MAX_VARIANTS_PER_TOGGLE = 100;
// What a new name adds to the bucket's JSON besides itself: `"":{"yes":0,"no":0,"variants":{}},` and `"":0,`.
const TOGGLE_BYTES = 36;
const VARIANT_BYTES = 5;

/**
 * Yes/no and variant counts per flag, for the proxy's own evaluations and for what
 * clients post, sent upstream as one bucket per interval under the proxy's own identity.
 * Every new flag or variant name takes room from the budget for pending reports.
 */
export class UsageMetrics {
  private toggles = new Map<string, Counts>();
  private start = new Date();
  /** The room this window's names took, given back when the window is taken. */
  private reserved = 0;

  constructor(private readonly budget: ReportBudget) {}

  /** One evaluation: on or off, and the variant it served when there was one. */
  count(name: string, enabled: boolean, variant?: string): void {
    this.add(name, enabled ? 1 : 0, enabled ? 0 : 1, variant === undefined ? undefined : { [variant]: 1 });
  }

  add(name: string, yes: number, no: number, variants?: ToggleCounts["variants"]): void {
    let counts = this.toggles.get(name);
    if (!counts) {
      if (this.toggles.size >= MAX_TOGGLES || !this.reserve(name.length + TOGGLE_BYTES)) return;
      counts = { yes: 0, no: 0, variants: new Map() };
      this.toggles.set(name, counts);
    }
    counts.yes += yes;
    counts.no += no;
    for (const [variant, count] of Object.entries(variants ?? {})) {
      const previous = counts.variants.get(variant);
      if (
        previous === undefined &&
        (counts.variants.size >= MAX_VARIANTS_PER_TOGGLE || !this.reserve(variant.length + VARIANT_BYTES))
      )
        continue;
      counts.variants.set(variant, (previous ?? 0) + count);
    }
  }

  /** Adds what a client counted, in the shape of the SDK metrics API. */
  addBucket(toggles: MetricsBucket["toggles"]): void {
    for (const [name, counts] of Object.entries(toggles))
      this.add(name, counts.yes ?? 0, counts.no ?? 0, counts.variants);
  }

  /** Hands over everything counted so far and starts a new window; undefined when nothing was counted. */
  take(now = new Date()): MetricsBucket | undefined {
    if (this.toggles.size === 0) return undefined;
    // fromEntries defines own properties, so a flag named __proto__ stays a flag.
    const toggles: MetricsBucket["toggles"] = Object.fromEntries(
      [...this.toggles].map(([name, counts]) => [
        name,
        { yes: counts.yes, no: counts.no, variants: Object.fromEntries(counts.variants) },
      ]),
    );
    const bucket = { start: this.start.toISOString(), stop: now.toISOString(), toggles };
    this.toggles = new Map();
    this.start = now;
    this.budget.release(this.reserved);
    this.reserved = 0;
    return bucket;
  }

  /** Puts back a bucket that could not be sent, so its counts leave with the next one, as far as the budget has room. */
  restore(bucket: MetricsBucket): void {
    this.addBucket(bucket.toggles);
    const start = new Date(bucket.start);
    if (start < this.start) this.start = start;
  }

  private reserve(bytes: number): boolean {
    if (!this.budget.take(bytes, "usage")) return false;
    this.reserved += bytes;
    return true;
  }
}
