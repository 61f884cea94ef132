import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Batches } from "../src/domains/metrics/batches.js";
import { databaseKinds } from "./support/database.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// SDK reports that arrive together are written together: what each instance sent is counted
// once, every instance is listed, and each new application is recorded once, by its SDK.

const HOUR = 3_600_000;

describe.each(databaseKinds)("reports arriving together (%s)", (kind) => {
  let server: TestServer;
  const now = Date.now();

  beforeAll(async () => {
    server = await startTestServer(kind);
    for (const name of ["checkout", "search"]) {
      const reply = await server.request("/api/admin/projects/default/features", {
        method: "POST",
        body: { name },
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }
    const reports = Array.from({ length: 24 }, (_, index) =>
      server.request("/api/client/metrics", {
        method: "POST",
        token: CLIENT_TOKEN,
        body: {
          appName: index % 2 === 0 ? "shop" : "cart",
          instanceId: `instance-${index}`,
          bucket: {
            start: new Date(now - 60_000).toISOString(),
            stop: new Date(now - index).toISOString(),
            toggles: {
              checkout: { yes: index, no: 1, variants: { blue: 1, [`v${index % 3}`]: 2 } },
              ...(index % 4 === 0 ? { search: { yes: 1, no: 0 } } : {}),
            },
          },
        },
      }),
    );
    for (const reply of await Promise.all(reports)) expect(reply.status).toBe(202);
  });
  afterAll(() => server?.close());

  it("adds up every report's counts", async () => {
    const reply = await server.request("/api/admin/client-metrics/features/checkout/raw?hoursBack=1");
    expect(reply.status).toBe(200);
    const hour = new Date(Math.floor(now / HOUR) * HOUR).toISOString();
    const expected = (parity: number) => {
      const indexes = Array.from({ length: 24 }, (_, index) => index).filter((index) => index % 2 === parity);
      const variants: Record<string, number> = { blue: indexes.length };
      for (const index of indexes) variants[`v${index % 3}`] = (variants[`v${index % 3}`] ?? 0) + 2;
      return {
        yes: indexes.reduce((sum, index) => sum + index, 0),
        no: indexes.length,
        variants,
      };
    };
    expect(reply.body.data).toEqual([
      {
        featureName: "checkout",
        appName: "cart",
        environment: "development",
        timestamp: hour,
        ...expected(1),
      },
      {
        featureName: "checkout",
        appName: "shop",
        environment: "development",
        timestamp: hour,
        ...expected(0),
      },
    ]);
    const search = await server.request("/api/admin/client-metrics/features/search");
    expect(search.body.lastHourUsage).toEqual([
      { environment: "development", timestamp: hour, yes: 6, no: 0 },
    ]);
  });

  it("lists every instance, and marks the flags seen at the latest report", async () => {
    const shop = await server.request("/api/admin/metrics/applications/shop");
    expect(shop.body.instances.map((instance: { instanceId: string }) => instance.instanceId).sort()).toEqual(
      Array.from({ length: 12 }, (_, index) => `instance-${index * 2}`).sort(),
    );
    const flag = await server.request("/api/admin/projects/default/features/checkout");
    const development = flag.body.environments.find((env: { name: string }) => env.name === "development");
    expect(development.lastSeenAt).toBe(new Date(now).toISOString());
    expect(flag.body.lastSeenAt).toBe(new Date(now).toISOString());
  });

  it("records each new application once, as its SDK's doing", async () => {
    const created = await server.db
      .selectFrom("events")
      .select(["created_by", "data"])
      .where("type", "=", "application-created")
      .execute();
    expect(created.map((event) => (event.data as { appName: string }).appName).sort()).toEqual([
      "cart",
      "shop",
    ]);
    for (const event of created) expect(event.created_by).not.toBe("metrics");
  });
});

describe("writes that go together", () => {
  it("take what arrived together, and fail alone: a batch that fails is written again item by item", async () => {
    const written: number[][] = [];
    const batches = new Batches<number>(async (items) => {
      written.push(items);
      if (items.includes(3)) throw new Error("three is refused");
    }, 4);
    const outcomes = await Promise.allSettled([1, 2, 3, 4, 5].map((item) => batches.add(item)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    expect(written).toEqual([[1, 2, 3, 4], [1], [2], [3], [4], [5]]);
  });
});
