import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { system } from "../src/access/actor.js";
import type { Connection } from "../src/db/connection.js";
import { type Consumer, Outbox, type OutboxLog } from "../src/domains/events/outbox.js";
import type { StoredEvent } from "../src/domains/events/schemas.js";
import { EventService } from "../src/domains/events/service.js";
import { databaseKinds, freshDatabase } from "./support/database.js";

/** Quick timings, so that retries and lapsed claims show within a test. */
const timing = { pollMs: 50, leaseMs: 600, retryMinMs: 40, retryMaxMs: 160 };

const quietLog = (): OutboxLog & { errors: object[] } => {
  const errors: object[] = [];
  return { errors, error: (details) => errors.push(details), warn: () => {} };
};

describe.each(databaseKinds)("outbox delivery (%s)", (kind) => {
  let connection: Connection;
  let events: EventService;
  const running: Outbox[] = [];
  let flag = 0;

  beforeAll(async () => {
    connection = await freshDatabase(kind);
    events = new EventService(connection.db);
    await events.start();
  });
  afterEach(async () => {
    for (const outbox of running.splice(0)) await outbox.stop();
  });
  afterAll(async () => {
    await events?.stop();
    await connection?.close();
  });

  /** An outbox as an instance of the service runs one, started. */
  function outbox(log: OutboxLog = quietLog()): Outbox {
    const started = new Outbox(connection.db, events, timing);
    started.start(log);
    running.push(started);
    return started;
  }

  /** Commits `transactions` changes of `perTransaction` events each; their ids, in id order. */
  async function write(transactions: number, perTransaction = 1): Promise<number[]> {
    const names: string[] = [];
    await Promise.all(
      Array.from({ length: transactions }, () =>
        events.change(system("test"), async (change) => {
          for (let index = 0; index < perTransaction; index++) {
            const featureName = `flag-${++flag}`;
            names.push(featureName);
            change.record({ type: "feature-archived", project: "default", featureName });
          }
        }),
      ),
    );
    const rows = await connection.db
      .selectFrom("events")
      .select("id")
      .where("feature_name", "in", names)
      .orderBy("id")
      .execute();
    return rows.map((row) => row.id);
  }

  /** A consumer that keeps what it is handed, one array per delivery. */
  function recorder(name: string, batchSize?: number) {
    const deliveries: number[][] = [];
    const consumer: Consumer = {
      name,
      batchSize,
      handle: async (batch) => {
        deliveries.push(batch.map((event) => event.id));
      },
    };
    return { consumer, deliveries, ids: () => deliveries.flat() };
  }

  it("hands each consumer every event committed after it was registered, once, in order, in batches", async () => {
    await write(3);
    const one = recorder("one-by-one", 1);
    const seven = recorder("by-seven", 7);
    const box = outbox();
    await box.register(one.consumer);
    await box.register(seven.consumer);
    const written = await write(10, 3);
    await expect.poll(() => one.ids().length, { timeout: 10_000 }).toBe(written.length);
    await expect.poll(() => seven.ids().length, { timeout: 10_000 }).toBe(written.length);
    expect(one.ids()).toEqual(written);
    expect(seven.ids()).toEqual(written);
    expect(one.deliveries.every((delivery) => delivery.length === 1)).toBe(true);
    expect(Math.max(...seven.deliveries.map((delivery) => delivery.length))).toBeLessThanOrEqual(7);
    expect(await box.lag()).toEqual({ "one-by-one": 0, "by-seven": 0 });
  });

  it("hands a failed batch over again after growing pauses, without holding up other consumers", async () => {
    const log = quietLog();
    const box = outbox(log);
    const attempts: { ids: number[]; at: number }[] = [];
    const flaky: Consumer = {
      name: "flaky",
      handle: async (batch) => {
        attempts.push({ ids: batch.map((event) => event.id), at: performance.now() });
        if (attempts.length <= 3) throw new Error("the webhook is down");
      },
    };
    const steady = recorder("steady");
    await box.register(flaky);
    await box.register(steady.consumer);
    const written = await write(4);
    await expect.poll(() => steady.ids(), { timeout: 5000 }).toEqual(written);
    await expect.poll(() => box.lag(), { timeout: 5000 }).toEqual({ flaky: 0, steady: 0 });
    // Each attempt after a failure starts where the failed one did: nothing is skipped, and
    // what succeeded is not handed over again.
    expect(attempts.slice(0, 4).map((attempt) => attempt.ids[0])).toEqual(Array(4).fill(written[0]));
    expect(attempts.slice(3).flatMap((attempt) => attempt.ids)).toEqual(written);
    const pauses = attempts.slice(1).map((attempt, index) => attempt.at - attempts[index]!.at);
    expect(pauses[0]).toBeGreaterThanOrEqual(timing.retryMinMs - 5);
    expect(pauses[1]).toBeGreaterThanOrEqual(2 * timing.retryMinMs - 5);
    expect(pauses[2]).toBeGreaterThanOrEqual(4 * timing.retryMinMs - 5);
    expect(log.errors).toEqual([
      expect.objectContaining({ consumer: "flaky", attempt: 1 }),
      expect.objectContaining({ consumer: "flaky", attempt: 2 }),
      expect.objectContaining({ consumer: "flaky", attempt: 3 }),
    ]);
  });

  it("reports how far behind each consumer is", async () => {
    const box = outbox();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held: number[] = [];
    await box.register({
      name: "slow",
      batchSize: 2,
      handle: async (batch, signal) => {
        held.push(...batch.map((event) => event.id));
        await Promise.race([gate, once(signal, "abort")]);
      },
    });
    const { position } = await connection.db
      .selectFrom("outbox_cursors")
      .select("position")
      .where("consumer", "=", "slow")
      .executeTakeFirstOrThrow();
    // One commit, so that the first batch is a full one.
    const written = await write(1, 5);
    await expect.poll(() => held.length).toBe(2);
    // Nothing is acknowledged while the first batch is in hand.
    expect(await box.lag()).toEqual({ slow: written.at(-1)! - position });
    release();
    await expect.poll(() => box.lag()).toEqual({ slow: 0 });
    expect(held).toEqual(written);
  });

  it("lets a consumer write to the database while it handles events", async () => {
    const box = outbox();
    const seen: StoredEvent[] = [];
    await box.register({
      name: "writer",
      handle: async (batch) => {
        seen.push(...batch);
        // What the change-request scheduler will do. On PGlite, one connection: a delivery
        // that held a transaction open would wait here forever.
        for (const event of batch.filter((event) => event.type === "feature-archived")) {
          await events.change(system("scheduler"), async (change) => {
            change.record({ type: "feature-revived", project: "default", featureName: event.featureName });
          });
        }
      },
    });
    await write(2);
    await expect
      .poll(() => seen.map((event) => event.type).sort(), { timeout: 5000 })
      .toEqual(["feature-archived", "feature-archived", "feature-revived", "feature-revived"]);
  });

  it("delivers each consumer from one outbox at a time, and another takes over when one stops", async () => {
    const first = outbox();
    const second = outbox();
    const handledBy: string[] = [];
    let inHand = 0;
    let mostInHand = 0;
    const consumer = (instance: string): Consumer => ({
      name: "shared",
      batchSize: 3,
      handle: async (batch, signal) => {
        inHand++;
        mostInHand = Math.max(mostInHand, inHand);
        try {
          await sleep(5, undefined, { signal });
          handledBy.push(...batch.map((event) => `${instance}:${event.id}`));
        } finally {
          inHand--;
        }
      },
    });
    await first.register(consumer("first"));
    await second.register(consumer("second"));
    const written = await write(30);
    await expect.poll(() => handledBy.length, { timeout: 10_000 }).toBe(written.length);
    expect(handledBy.map((entry) => Number(entry.split(":")[1]))).toEqual(written);
    expect(mostInHand).toBe(1);

    // A stopping outbox gives its claims up: the other delivers well before a lease would lapse.
    await first.stop();
    handledBy.length = 0;
    const more = await write(3);
    const since = performance.now();
    await expect.poll(() => handledBy, { timeout: 5000 }).toEqual(more.map((id) => `second:${id}`));
    expect(performance.now() - since).toBeLessThan(timing.leaseMs);
  });

  it("lets a delivery in flight finish when stopping, so the next instance does not hand it over again", async () => {
    const first = outbox();
    const second = outbox();
    const handled: string[] = [];
    let started: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const consumer = (instance: string, pauseMs: number): Consumer => ({
      name: "graceful",
      handle: async (batch, signal) => {
        started();
        await sleep(pauseMs, undefined, { signal });
        handled.push(...batch.map((event) => `${instance}:${event.id}`));
      },
    });
    await first.register(consumer("first", 300));
    const [id] = await write(1);
    await inFlight;
    await first.stop();
    await second.register(consumer("second", 0));
    const [later] = await write(1);
    await expect.poll(() => handled, { timeout: 5000 }).toEqual([`first:${id}`, `second:${later}`]);
  });

  it("aborts a delivery that outlasts the grace period when stopping, and hands it over again", async () => {
    const first = new Outbox(connection.db, events, { ...timing, stopGraceMs: 100 });
    first.start(quietLog());
    const second = outbox();
    const handled: string[] = [];
    let started: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const consumer = (instance: string, pauseMs: number): Consumer => ({
      name: "impatient",
      handle: async (batch, signal) => {
        started();
        await sleep(pauseMs, undefined, { signal });
        handled.push(...batch.map((event) => `${instance}:${event.id}`));
      },
    });
    await first.register(consumer("first", 10_000));
    const [id] = await write(1);
    await inFlight;
    const since = performance.now();
    await first.stop();
    expect(performance.now() - since).toBeLessThan(2000);
    await second.register(consumer("second", 0));
    await expect.poll(() => handled, { timeout: 5000 }).toEqual([`second:${id}`]);
  });

  it("takes over a consumer claimed by an instance that died once its lease lapses", async () => {
    const box = outbox();
    const taken = recorder("orphaned");
    await box.register(taken.consumer);
    await connection.db
      .updateTable("outbox_cursors")
      .set({ holder: "an instance that died", held_until: sql<Date>`now() + interval '1 second'` })
      .where("consumer", "=", "orphaned")
      .execute();
    const written = await write(2);
    await sleep(300);
    expect(taken.ids()).toEqual([]);
    await expect.poll(() => taken.ids(), { timeout: 5000 }).toEqual(written);
  });

  it("numbers events in commit order, so concurrent writers never slip in behind a cursor", async () => {
    const box = outbox();
    const seen = recorder("ordered", 3);
    await box.register(seen.consumer);
    // Transactions that take a while between their first statement and their commit, many
    // at once: without commit-ordered ids, a consumer would see a later id before an earlier one commits.
    const writers = Array.from({ length: 40 }, (_, index) =>
      events.change(system("test"), async (change) => {
        await sql`select 1`.execute(change.db);
        await sleep(Math.random() * 20);
        change.record({ type: "feature-archived", project: "default", featureName: `burst-${index}` });
      }),
    );
    await Promise.all(writers);
    const written = await connection.db
      .selectFrom("events")
      .select("id")
      .where("feature_name", "like", "burst-%")
      .orderBy("id")
      .execute();
    await expect.poll(() => seen.ids().length, { timeout: 10_000 }).toBe(written.length);
    expect(seen.ids()).toEqual(written.map((row) => row.id));
  });

  it.runIf(kind === "postgres")(
    "numbers a transaction's events only once it holds the revision lock it keeps until commit",
    async () => {
      // `first` holds the lock; `second` starts meanwhile, then waits. Had `second` numbered
      // its event before waiting, it would commit after `first` with a smaller id.
      const { second } = await connection.db.transaction().execute(async (tx) => {
        await sql`update revision set value = value + 1`.execute(tx);
        const second = events.change(system("test"), async (change) => {
          change.record({ type: "feature-archived", project: "default", featureName: "second" });
        });
        await sleep(300);
        await tx
          .insertInto("events")
          .values({ type: "feature-archived", created_by: "test", project: "default", feature_name: "first" })
          .execute();
        return { second };
      });
      await second;
      const rows = await connection.db
        .selectFrom("events")
        .select(["id", "feature_name"])
        .where("feature_name", "in", ["first", "second"])
        .orderBy("id")
        .execute();
      expect(rows.map((row) => row.feature_name)).toEqual(["first", "second"]);
    },
  );
});
