import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { connect, type Db } from "../src/db/connection.js";
import { built } from "./support/built.js";
import { type DatabaseKind, databaseKinds, freshDatabase } from "./support/database.js";

// Instances of the built service in processes of their own, which these tests kill outright.
// The child imports the build, checked here so that a missing one fails saying how to make it.
const childScript = resolve(import.meta.dirname, "outbox-child.mjs");
built("index.js");
const ADMIN = "*:*.outbox-test-admin";

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Delivery {
  pid: number;
  ids: number[];
}

/** The outside world an outbox consumer delivers to: an HTTP endpoint in this process. */
async function startReceiver() {
  const deliveries: Delivery[] = [];
  let inFlight = 0;
  const receiver = {
    url: "",
    deliveries,
    mostInFlight: 0,
    /** What to do with a delivery: answer at once by default; answering later, or never, is up to a test. */
    policy: (_delivery: Delivery, response: ServerResponse) => void response.end(),
  };
  const server = createServer(async (request, response) => {
    inFlight++;
    receiver.mostInFlight = Math.max(receiver.mostInFlight, inFlight);
    response.on("close", () => inFlight--);
    let body = "";
    for await (const chunk of request) body += chunk;
    const delivery = JSON.parse(body) as Delivery;
    deliveries.push(delivery);
    receiver.policy(delivery, response);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  cleanup.push(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });
  return receiver;
}

/**
 * A database the instances share, and a way to look into it while none runs: PostgreSQL
 * from DATABASE_URL, or an embedded one in a folder of its own.
 */
interface SharedDatabase {
  /** The variables that point an instance at it. */
  env: Record<string, string>;
  read<T>(query: (db: Db) => Promise<T>): Promise<T>;
}

async function sharedDatabase(kind: DatabaseKind): Promise<SharedDatabase> {
  if (kind === "postgres") {
    const database = await freshDatabase("postgres");
    cleanup.push(() => database.close());
    return {
      env: { DATABASE_URL: database.url! },
      read: <T>(query: (db: Db) => Promise<T>) => query(database.db),
    };
  }
  const dataDir = await mkdtemp(join(tmpdir(), "signalbox-outbox-"));
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
  return {
    env: { DATA_DIR: dataDir },
    read: async <T>(query: (db: Db) => Promise<T>) => {
      const embedded = await connect({ dataDir });
      try {
        return await query(embedded.db);
      } finally {
        await embedded.close();
      }
    },
  };
}

interface Instance {
  pid: number;
  url: string;
  exited: Promise<unknown>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** The service with test/outbox-child.mjs's consumer, started as its command is and ready. */
async function startInstance(env: Record<string, string>, receiver: string): Promise<Instance> {
  const child: ChildProcess = spawn(process.execPath, [childScript], {
    env: {
      PATH: process.env.PATH,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      LOG_FORMAT: "json",
      PASSWORD_HASH_COST: "test",
      INIT_ADMIN_API_TOKENS: ADMIN,
      OUTBOX_RECEIVER: receiver,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr!.on("data", (chunk) => {
    output += chunk;
  });
  const exited = once(child, "exit");
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  cleanup.push(() => kill("SIGKILL"));
  const ready = await Promise.race([
    once(child, "message").then(([message]) => message as { url: string }),
    exited.then(() => {
      throw new Error(`the instance exited before it was ready:\n${output}`);
    }),
  ]);
  return { pid: child.pid!, url: ready.url, exited, kill };
}

async function createFlags(instance: Instance, names: string[]): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      const response = await fetch(`${instance.url}/api/admin/projects/default/features`, {
        method: "POST",
        headers: { authorization: ADMIN, "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      if (!response.ok) throw new Error(`creating ${name}: ${response.status} ${await response.text()}`);
    }),
  );
}

const flagNames = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}-${index}`);

/** The newest event id an instance lists: where a consumer registered now starts. */
async function newestEventId(instance: Instance): Promise<number> {
  const response = await fetch(`${instance.url}/api/admin/events/search`, {
    method: "POST",
    headers: { authorization: ADMIN, "content-type": "application/json" },
    body: JSON.stringify({ limit: 1 }),
  });
  const { events } = (await response.json()) as { events: { id: number }[] };
  return events[0]?.id ?? 0;
}

/** The consumer's committed cursor and every event id, oldest first. */
const logState = async (db: Db) => ({
  cursor: (
    await db
      .selectFrom("outbox_cursors")
      .select("position")
      .where("consumer", "=", "receiver")
      .executeTakeFirstOrThrow()
  ).position,
  ids: (await db.selectFrom("events").select("id").orderBy("id").execute()).map((row) => row.id),
});

const idsOf = (deliveries: Delivery[], pid: number) =>
  deliveries.filter((delivery) => delivery.pid === pid).flatMap((delivery) => delivery.ids);

describe.each(databaseKinds)("the outbox across kills (%s)", (kind) => {
  it("hands every event over after kills between commit and acknowledgement, none acknowledged twice", async () => {
    const database = await sharedDatabase(kind);
    const receiver = await startReceiver();
    const began = performance.now();

    // First life: two deliveries are acknowledged; the third is in flight when it is killed,
    // after every write has committed.
    let inFlight!: () => void;
    const third = new Promise<void>((resolve) => {
      inFlight = resolve;
    });
    receiver.policy = (_delivery, response) => {
      if (receiver.deliveries.length <= 2) response.end();
      else inFlight();
    };
    const first = await startInstance(database.env, receiver.url);
    const start = await newestEventId(first);
    await createFlags(first, flagNames("first", 12));
    await third;
    await first.kill("SIGKILL");
    const afterFirst = await database.read(logState);
    const [acknowledged, , held] = receiver.deliveries;
    expect(receiver.deliveries).toHaveLength(3);
    expect(afterFirst.cursor).toBe(receiver.deliveries[1]!.ids.at(-1));
    expect(held!.ids[0]).toBeGreaterThan(afterFirst.cursor);
    expect(acknowledged!.ids[0]).toBe(afterFirst.ids.find((id) => id > start));

    // Second life: more writes commit while the dead instance's claim runs out; the first
    // delivery is acknowledged and the instance killed the moment the answer is sent, which
    // may be before or after it moves its cursor on.
    let writesDone!: () => void;
    const written = new Promise<void>((resolve) => {
      writesDone = resolve;
    });
    let answered = false;
    receiver.policy = (_delivery, response) => {
      if (answered) return;
      answered = true;
      void written.then(() => {
        response.on("finish", () => void second.kill("SIGKILL"));
        response.end();
      });
    };
    const second = await startInstance(database.env, receiver.url);
    await createFlags(second, flagNames("second", 6));
    writesDone();
    await second.exited;
    const afterSecond = await database.read(logState);
    const secondIds = idsOf(receiver.deliveries, second.pid);
    expect([afterFirst.cursor, receiver.deliveries.find((d) => d.pid === second.pid)!.ids.at(-1)]).toContain(
      afterSecond.cursor,
    );

    // Third life: nothing crashes; it catches up and stops as an operator would stop it.
    receiver.policy = (_delivery, response) => void response.end();
    const last = await startInstance(database.env, receiver.url);
    const newest = afterSecond.ids.at(-1)!;
    await expect
      .poll(() => idsOf(receiver.deliveries, last.pid).at(-1), { timeout: 60_000, interval: 100 })
      .toBe(newest);
    await last.kill("SIGTERM");
    const final = await database.read(logState);
    expect(final.cursor).toBe(newest);

    // Each life delivers, in order and without a gap, from the cursor committed before it
    // started: an event acknowledged and committed is never handed over again, and only
    // what was in flight at a kill is handed over twice.
    const expected = final.ids.filter((id) => id > start);
    const lives = [
      { pid: first.pid, from: start },
      { pid: second.pid, from: afterFirst.cursor },
      { pid: last.pid, from: afterSecond.cursor },
    ];
    for (const life of lives) {
      const got = idsOf(receiver.deliveries, life.pid);
      expect(got.length).toBeGreaterThan(0);
      expect(got).toEqual(expected.filter((id) => id > life.from).slice(0, got.length));
    }
    expect(idsOf(receiver.deliveries, last.pid).at(-1)).toBe(expected.at(-1));
    const delivered = receiver.deliveries.flatMap((delivery) => delivery.ids);
    expect([...new Set(delivered)].sort((a, b) => a - b)).toEqual(expected);
    const twice = delivered.filter((id, index) => delivered.indexOf(id) !== index);
    expect(twice.every((id) => id > afterFirst.cursor)).toBe(true);
    expect(twice).toEqual(expect.arrayContaining(held!.ids));
    console.log(
      `outbox across kills (${kind}): ${expected.length} events, ${receiver.deliveries.length} deliveries, ` +
        `${twice.length} handed over twice (second life ${secondIds.length} handed, cursor ${afterSecond.cursor === afterFirst.cursor ? "not moved" : "moved"} before the kill), ` +
        `${((performance.now() - began) / 1000).toFixed(1)} s`,
    );
  }, 180_000);
});

describe.runIf(process.env.DATABASE_URL)("the outbox on instances sharing one PostgreSQL database", () => {
  it("hands each event to exactly one instance's consumer, one delivery at a time, in order", async () => {
    const database = await sharedDatabase("postgres");
    const receiver = await startReceiver();
    // A little latency, as a real endpoint has: the instances' claims overlap in time.
    receiver.policy = (_delivery, response) => void sleep(Math.random() * 10).then(() => response.end());
    const instances = await Promise.all([
      startInstance(database.env, receiver.url),
      startInstance(database.env, receiver.url),
    ]);
    const start = await newestEventId(instances[0]!);
    for (let wave = 0; wave < 3; wave++) {
      await Promise.all(
        instances.map((instance, index) => createFlags(instance, flagNames(`wave-${wave}-${index}`, 8))),
      );
    }
    const { ids } = await database.read(logState);
    const expected = ids.filter((id) => id > start);
    await expect
      .poll(() => receiver.deliveries.flatMap((delivery) => delivery.ids).at(-1), { timeout: 30_000 })
      .toBe(expected.at(-1));
    await Promise.all(instances.map((instance) => instance.kill("SIGTERM")));

    expect(receiver.deliveries.flatMap((delivery) => delivery.ids)).toEqual(expected);
    expect(receiver.mostInFlight).toBe(1);
    const byInstance = instances.map((instance) => idsOf(receiver.deliveries, instance.pid).length);
    console.log(`two instances: ${expected.length} events handed over as ${byInstance.join(" + ")}`);
  }, 120_000);
});
