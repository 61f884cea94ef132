import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { system } from "../src/access/actor.js";
import { databaseKinds } from "./support/database.js";
import { fingerprint } from "./support/fingerprint.js";
import {
  ADMIN_TOKEN,
  CLIENT_TOKEN,
  FRONTEND_TOKEN,
  startTestServer,
  type TestServer,
} from "./support/server.js";

// Requests made from the route table and its schemas: mostly well-formed, with hostile values
// mixed in. No answer may be a 5xx, and a refused write must leave every table as it was.
// FUZZ_SEED replays a run; FUZZ_REQUESTS sets its length.
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2500);

/** mulberry32: small, seeded, and the same on every machine. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  return { next, pick, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof random>;

// Names that exist after setup, so that many requests get past "not found" to the writes.
const KNOWN = [
  "default",
  "development",
  "production",
  "fuzz-flag",
  "fuzz-parent",
  "simple",
  "userId",
  "1",
  "2",
];

const HOSTILE_STRINGS = [
  "a\u0000b",
  "\u0000",
  "\uD800",
  "x\uDFFFy",
  "x".repeat(5000),
  "",
  " ",
  "../../etc",
  "%00",
  "'; drop table features; --",
  "😀",
  "{{}}",
  "1e20",
  "-1",
  "NaN",
];
const HOSTILE_NUMBERS = [2147483648, -2147483649, 1e20, 1e308, -1e308, 0.5, -1, 2 ** 53 + 2, 4294967296];
const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  {},
  [],
  { toString: 1 },
  [null],
  { a: { b: { c: [1] } } },
  0,
  "text",
];

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  patternProperties?: Record<string, Schema>;
};

function valueFor(schema: Schema | undefined, rng: Random, depth = 0): unknown {
  if (!schema || depth > 4) return rng.pick(HOSTILE_VALUES);
  // One value in five is hostile for its place.
  if (rng.chance(0.2)) {
    return rng.pick([rng.pick(HOSTILE_STRINGS), rng.pick(HOSTILE_NUMBERS), rng.pick(HOSTILE_VALUES)]);
  }
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return rng.pick(schema.enum);
  if (schema.anyOf) return valueFor(rng.pick(schema.anyOf), rng, depth + 1);
  const type = Array.isArray(schema.type) ? rng.pick(schema.type) : schema.type;
  switch (type) {
    case "string":
      return rng.chance(0.5) ? rng.pick(KNOWN) : `fuzz-${Math.floor(rng.next() * 1000)}`;
    case "integer":
      return Math.floor(rng.next() * 200) - 20;
    case "number":
      return rng.next() * 200 - 20;
    case "boolean":
      return rng.chance(0.5);
    case "null":
      return null;
    case "array": {
      const length = Math.floor(rng.next() * 3);
      return Array.from({ length }, () => valueFor(schema.items, rng, depth + 1));
    }
    case "object":
      return objectFor(schema, rng, depth + 1);
    default:
      return rng.pick([...HOSTILE_VALUES, rng.pick(KNOWN)]);
  }
}

function objectFor(schema: Schema, rng: Random, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (schema.required?.includes(key) || rng.chance(0.6)) object[key] = valueFor(property, rng, depth);
  }
  const open = Object.values(schema.patternProperties ?? {})[0];
  if (open && rng.chance(0.7)) object[rng.pick(["plan", "a\u0000", "userId"])] = valueFor(open, rng, depth);
  if (rng.chance(0.1)) object[rng.pick(["extra", "__proto__", "constructor"])] = rng.pick(HOSTILE_VALUES);
  return object;
}

function pathFor(url: string, params: Schema | undefined, rng: Random): string {
  return url.replace(/:(\w+)/g, (_, name: string) => {
    const value = rng.chance(0.7)
      ? valueFor(params?.properties?.[name] ?? { type: "string" }, rng)
      : rng.pick(KNOWN);
    const text = typeof value === "object" ? JSON.stringify(value) : String(value);
    // A lone surrogate has no UTF-8 form: sent as the bytes a careless encoder would write.
    return (
      encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, "")) +
      (/[\uD800-\uDFFF]/.test(text) ? "%ED%A0%80" : "")
    );
  });
}

function queryFor(schema: Schema | undefined, rng: Random): string {
  if (!schema?.properties || rng.chance(0.3)) return "";
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(objectFor(schema, rng, 1))) {
    search.append(key, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

function bodyFor(schema: Schema | undefined, rng: Random): string | undefined {
  if (rng.chance(0.04))
    return rng.pick(["{", "[]", '"text"', "null", `${"[".repeat(20_000)}${"]".repeat(20_000)}`]);
  if (!schema) return rng.chance(0.8) ? undefined : JSON.stringify(rng.pick(HOSTILE_VALUES));
  return JSON.stringify(valueFor(schema, rng));
}

/** Everything the service keeps, as one hash per table. */
const TOKENS = { admin: ADMIN_TOKEN, client: CLIENT_TOKEN, frontend: FRONTEND_TOKEN } as const;

async function restoreTokens(server: TestServer) {
  await server.db.updateTable("api_tokens").set({ expires_at: null }).execute();
  for (const type of ["admin", "client", "frontend"] as const) {
    // Client and frontend tokens need their environment, which the run may have deleted.
    await server.services.tokens.ensure(system("test"), type, [TOKENS[type]]).catch(() => {});
  }
}

describe.each(databaseKinds)("fuzzing every route (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    for (const name of ["fuzz-flag", "fuzz-parent"]) {
      await server.request("/api/admin/projects/default/features", { method: "POST", body: { name } });
    }
  });
  afterAll(() => server?.close());

  // Requests that answered 500 before, from public endpoints to admin ones.
  it.each([
    ["POST", "/api/frontend", FRONTEND_TOKEN, { context: { userId: { toString: 1 } } }],
    ["POST", "/api/frontend/client/metrics", FRONTEND_TOKEN, { appName: "a\u0000b", bucket: {} }],
    ["POST", "/api/client/register", CLIENT_TOKEN, { appName: "a\u0000b" }],
    ["POST", "/api/client/register", CLIENT_TOKEN, { appName: "app", interval: 1e308 }],
    ["GET", "/api/admin/segments/2147483648", ADMIN_TOKEN, undefined],
    ["POST", "/api/admin/events/search", ADMIN_TOKEN, { offset: 1e20 }],
    ["PUT", "/api/admin/api-tokens/abc", ADMIN_TOKEN, { expiresAt: "2030-01-01T00:00:00Z" }],
    ["PUT", "/api/admin/api-tokens/99999999999", ADMIN_TOKEN, { expiresAt: "2030-01-01T00:00:00Z" }],
    ["POST", "/api/admin/projects", ADMIN_TOKEN, { id: "p1", name: "x\uD800" }],
    ["PUT", "/api/admin/projects/default", ADMIN_TOKEN, { name: "Default", featureLimit: 2147483648 }],
    ["GET", "/api/admin/projects/a%00b", ADMIN_TOKEN, undefined],
    ["POST", "/api/admin/environments", ADMIN_TOKEN, { name: "e1", type: "test", sortOrder: 1e20 }],
  ])("answers %s %s with a 4xx and changes nothing", async (method, path, token, body) => {
    const before = await fingerprint(server);
    const reply = await server.request(path, { method, token, ...(body === undefined ? {} : { body }) });
    expect(reply.status, JSON.stringify(reply.body)).toBeGreaterThanOrEqual(400);
    expect(reply.status).toBeLessThan(500);
    expect(reply.body).toMatchObject({ name: expect.any(String), message: expect.any(String) });
    expect(await fingerprint(server)).toEqual(before);
  });

  it(`answers ${REQUESTS} generated requests without a 5xx, and refused writes change nothing`, async () => {
    console.log(`fuzz (${kind}): seed ${SEED}, ${REQUESTS} requests (FUZZ_SEED=${SEED} replays)`);
    const rng = random(SEED);
    const routes = server.routes.filter(
      (route) => route.method !== "HEAD" && !String(route.url).includes("*"),
    );
    const failures: string[] = [];
    const statuses: Record<number, number> = {};
    let before = await fingerprint(server);
    for (let index = 0; index < REQUESTS && failures.length < 10; index++) {
      const route = rng.pick(routes);
      const method = (Array.isArray(route.method) ? rng.pick(route.method) : route.method) as string;
      const schema = (route.schema ?? {}) as Record<string, Schema>;
      const path = pathFor(String(route.url), schema.params, rng) + queryFor(schema.querystring, rng);
      const access = (route.config as { auth?: keyof typeof TOKENS | "public" } | undefined)?.auth ?? "admin";
      const token =
        access === "public" || rng.chance(0.05) ? rng.pick(Object.values(TOKENS)) : TOKENS[access];
      const body = ["POST", "PUT", "PATCH"].includes(method) ? bodyFor(schema.body, rng) : undefined;
      const reply = await server.request(path, { method, token, ...(body === undefined ? {} : { body }) });
      statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
      // A deleted or narrowed fixture token would turn the rest of the run into 401s.
      if (method !== "GET" && path.startsWith("/api/admin/api-tokens") && reply.status < 300) {
        await restoreTokens(server);
      }
      const described = `#${index} ${method} ${path.slice(0, 200)} ${body?.slice(0, 300) ?? ""}`;
      if (reply.status >= 500) failures.push(`${described} → ${reply.status} ${JSON.stringify(reply.body)}`);
      if (method === "GET" || method === "OPTIONS") continue;
      const after = await fingerprint(server);
      if (reply.status >= 400) {
        const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
        if (changed.length > 0)
          failures.push(`${described} → ${reply.status} yet changed ${changed.join(", ")}`);
      }
      before = after;
    }
    console.log(`fuzz (${kind}): statuses ${JSON.stringify(statuses)}`);
    expect(failures, `seed ${SEED}`).toEqual([]);
  }, 600_000);
});
