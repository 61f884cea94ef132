/** A small seeded generator (mulberry32): the same seed gives the same configuration and contexts. */
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
