// Seeded randomness for comparisons: the same seed gives the same contexts, and evaluations
// that draw a random number (random stickiness, gradualRolloutRandom, a context without
// userId or sessionId) draw the same numbers on both sides, so a difference is never luck.

/** A small seeded generator (mulberry32). */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  some<T>(items: readonly T[], min: number, max: number): T[] {
    const pool = [...items];
    const count = Math.min(pool.length, this.int(min, max));
    const chosen: T[] = [];
    for (let i = 0; i < count; i++) chosen.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]!);
    return chosen;
  }
}

export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

/** The seed of one context and flag: each pair draws a sequence of its own. */
export function pairSeed(seed: number, contextIndex: number, flagIndex: number): number {
  return (seed ^ Math.imul(contextIndex + 1, 0x9e3779b1) ^ Math.imul(flagIndex + 1, 0x85ebca6b)) >>> 0;
}

export interface SeededMath {
  /** Starts the sequence Math.random draws from again, from this seed. */
  restart(seed: number): void;
  /** How many numbers Math.random has handed out so far. */
  readonly draws: number;
}

/**
 * Runs `body` with Math.random drawing from a seeded sequence, which evaluators (the SDKs,
 * the engine) use for their random draws; restarting it with the same seed before each side
 * evaluates a pair makes both draw alike. Math.random is put back afterwards.
 */
export function withSeededMath<T>(body: (math: SeededMath) => T): T {
  const original = Math.random;
  let stream = new Random(0);
  let draws = 0;
  Math.random = () => {
    draws++;
    return stream.next();
  };
  try {
    return body({
      restart(seed) {
        stream = new Random(seed);
      },
      get draws() {
        return draws;
      },
    });
  } finally {
    Math.random = original;
  }
}
