import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { fingerprint } from "./support/fingerprint.js";
import { createUser, login } from "./support/people.js";
import { CLIENT_TOKEN, type Reply, startTestServer, type TestServer } from "./support/server.js";

// Restoring a flag to an earlier version, over HTTP. A seeded sequence of changes to one flag
// in two environments is made, and after each what SDKs are served and what the admin API
// shows are captured; then every version is restored in turn, and SDKs must be served what
// they were then. Beside it: one environment alone, refusals (something gone, something
// unknown, no permission), and the path through a change request.

const BASE = "/api/admin/projects/default";
const ENVIRONMENTS = ["development", "production"] as const;
type Environment = (typeof ENVIRONMENTS)[number];
const SEED = 20240611;
const CHANGES = 40;

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
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => next() < p;
  const shuffle = <T>(items: readonly T[]): T[] => {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = int(i + 1);
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy;
  };
  const some = <T>(items: readonly T[], most: number): T[] => shuffle(items).slice(0, int(most + 1));
  return { next, int, pick, chance, shuffle, some };
}
type Random = ReturnType<typeof random>;

// biome-ignore lint/suspicious/noExplicitAny: tests assert on bodies rather than type them
type Body = any;

describe.each(databaseKinds)("restoring a flag's versions (%s)", (kind) => {
  let server: TestServer;
  const tokens: Record<Environment, string> = { development: CLIENT_TOKEN, production: "" };
  const segments: number[] = [];

  const call = (method: string, path: string, body?: unknown): Promise<Reply<Body>> =>
    server.request(path, { method, body });
  const ok = async (method: string, path: string, body?: unknown): Promise<Body> => {
    const reply = await call(method, path, body);
    expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
    return reply.body;
  };
  /** What an SDK of the environment is served of the flag. */
  const served = async (flag: string, environment: Environment) => {
    const reply = await server.request(`/api/client/features/${flag}`, { token: tokens[environment] });
    expect(reply.status).toBe(200);
    return reply.body;
  };
  const servedEverywhere = async (flag: string) => ({
    development: await served(flag, "development"),
    production: await served(flag, "production"),
  });
  /** What the admin API shows of the flag's configuration. */
  const shown = async (flag: string, project = "default") => {
    const view = await ok("GET", `/api/admin/projects/${project}/features/${flag}`);
    return {
      environments: Object.fromEntries(
        view.environments.map((env: Body) => [
          env.name,
          {
            enabled: env.enabled,
            strategies: env.strategies.map(({ featureName: _flag, ...strategy }: Body) => strategy),
            variants: env.variants,
          },
        ]),
      ),
      dependencies: view.dependencies,
    };
  };
  const versionsOf = async (flag: string, project = "default") =>
    (await ok("GET", `/api/admin/projects/${project}/features/${flag}/versions?limit=1000`))
      .versions as Body[];
  const newest = async (flag: string, project = "default") => (await versionsOf(flag, project))[0].eventId;
  const restore = (flag: string, version: number, body: unknown = {}, project = "default") =>
    call("POST", `/api/admin/projects/${project}/features/${flag}/versions/${version}/restore`, body);
  const preview = (flag: string, version: number, environment?: string, project = "default") =>
    call(
      "GET",
      `/api/admin/projects/${project}/features/${flag}/versions/${version}/restore${environment ? `?environment=${environment}` : ""}`,
    );

  beforeAll(async () => {
    server = await startTestServer(kind);
    const token = await ok("POST", "/api/admin/api-tokens", {
      tokenName: "rollback-production",
      type: "client",
      environment: "production",
      projects: ["*"],
    });
    tokens.production = token.secret;
    await ok("POST", "/api/admin/context", { name: "region" });
    for (const [name, constraints] of [
      ["beta", [{ contextName: "userId", operator: "IN", values: ["7", "8"] }]],
      ["europe", [{ contextName: "region", operator: "IN", values: ["eu"] }]],
      ["staff", [{ contextName: "userId", operator: "STR_ENDS_WITH", values: ["@signalbox.dev"] }]],
    ] as const) {
      segments.push((await ok("POST", "/api/admin/segments", { name, constraints })).id);
    }
    for (const parent of ["rb-parent-1", "rb-parent-2"])
      await ok("POST", `${BASE}/features`, { name: parent });
  });
  afterAll(() => server?.close());

  const CONSTRAINTS = [
    { contextName: "userId", operator: "IN", values: ["1", "2", "3"] },
    { contextName: "region", operator: "NOT_IN", values: ["us"], caseInsensitive: true },
    { contextName: "appName", operator: "STR_STARTS_WITH", values: ["web"] },
    { contextName: "userId", operator: "NUM_GT", value: "5", values: [] },
    { contextName: "currentTime", operator: "DATE_AFTER", value: "2024-01-01T00:00:00.000Z", values: [] },
  ];

  const strategyVariants = (r: Random) => {
    const names = r.some(["red", "green", "blue", "amber"], 3);
    const fixed = names.length > 1 && r.chance(0.3) ? names[0] : undefined;
    return names.map((name) => ({
      name,
      weight: name === fixed ? 250 : 0,
      weightType: name === fixed ? "fix" : "variable",
      stickiness: r.pick(["default", "userId"]),
      ...(r.chance(0.5) ? { payload: { type: "string", value: `${name}-payload` } } : {}),
    }));
  };

  const randomStrategy = (r: Random, flag: string) => {
    const name = r.pick(["flexibleRollout", "flexibleRollout", "default", "userWithId"]);
    const parameters =
      name === "flexibleRollout"
        ? {
            rollout: String(r.int(101)),
            stickiness: r.pick(["default", "userId"]),
            groupId: r.pick(["", flag, "g"]),
          }
        : name === "userWithId"
          ? { userIds: r.pick(["u1", "u1,u2", "u3"]) }
          : {};
    return {
      name,
      ...(r.chance(0.3) ? { title: `title ${r.int(100)}` } : {}),
      disabled: r.chance(0.15),
      parameters,
      constraints: r.some(CONSTRAINTS, 2),
      segments: r.some(segments, 2),
      variants: name === "flexibleRollout" ? strategyVariants(r) : [],
    };
  };

  const flagVariants = (r: Random) => {
    const names = r.some(["a", "b", "c", "d"], 3);
    const fixed = names.length > 1 && r.chance(0.3) ? names[0] : undefined;
    return names.map((name) => ({
      name,
      weight: name === fixed ? 100 : 0,
      weightType: name === fixed ? "fix" : "variable",
      stickiness: "default",
      ...(r.chance(0.5) ? { payload: { type: "json", value: `{"v":"${name}"}` } } : {}),
    }));
  };

  /** What the sequence does, each kind at least twice, the rest drawn at random, in a shuffled order. */
  const KINDS = [
    "toggle",
    "add",
    "update",
    "patch",
    "remove",
    "reorder",
    "env-variants",
    "flag-variants",
    "depend",
    "undepend",
  ] as const;
  type Kind = (typeof KINDS)[number];
  const WEIGHTED: Kind[] = [...KINDS, "toggle", "add", "add", "update"];
  const deck = (r: Random, length: number): Kind[] =>
    r.shuffle([
      ...KINDS,
      ...KINDS,
      ...Array.from({ length: length - 2 * KINDS.length }, () => r.pick(WEIGHTED)),
    ]);

  /** One random change of the kind to the flag, through the ordinary routes; what it did, in words. */
  const randomChange = async (r: Random, flag: string, kind: Kind): Promise<string> => {
    const env = r.pick(ENVIRONMENTS);
    const path = `${BASE}/features/${flag}/environments/${env}`;
    const strategies: Body[] = await ok("GET", `${path}/strategies`);
    let what: Kind = kind;
    if (
      ["update", "patch", "remove", "reorder"].includes(what) &&
      strategies.length < (what === "reorder" ? 2 : 1)
    )
      what = "add";
    switch (what) {
      case "toggle": {
        const on = (await shown(flag)).environments[env].enabled;
        await ok("POST", `${path}/${on ? "off" : "on"}`);
        return `${env}: ${on ? "off" : "on"}`;
      }
      case "add":
        await ok("POST", `${path}/strategies`, randomStrategy(r, flag));
        return `${env}: add strategy`;
      case "update": {
        const target = r.pick(strategies);
        await ok("PUT", `${path}/strategies/${target.id}`, randomStrategy(r, flag));
        return `${env}: update strategy ${target.id}`;
      }
      case "patch": {
        const target = r.pick(strategies);
        await ok("PATCH", `${path}/strategies/${target.id}`, [
          { op: "replace", path: "/disabled", value: !target.disabled },
        ]);
        return `${env}: patch strategy ${target.id}`;
      }
      case "remove": {
        const target = r.pick(strategies);
        await ok("DELETE", `${path}/strategies/${target.id}`);
        return `${env}: remove strategy ${target.id}`;
      }
      case "reorder": {
        const base = r.int(3);
        await ok(
          "POST",
          `${path}/strategies/set-sort-order`,
          r.shuffle(strategies).map((strategy, index) => ({ id: strategy.id, sortOrder: base + index * 2 })),
        );
        return `${env}: reorder`;
      }
      case "env-variants":
        await ok("PUT", `${path}/variants`, flagVariants(r));
        return `${env}: variants`;
      case "flag-variants":
        await ok("PUT", `${BASE}/features/${flag}/variants`, flagVariants(r));
        return "variants everywhere";
      case "depend": {
        const parent = r.pick(["rb-parent-1", "rb-parent-2"]);
        const enabled = r.chance(0.75);
        await ok("POST", `${BASE}/features/${flag}/dependencies`, {
          feature: parent,
          enabled,
          ...(enabled && r.chance(0.5) ? { variants: r.some(["x", "y"], 2) } : {}),
        });
        return `depend on ${parent}`;
      }
      default: {
        const parents = (await shown(flag)).dependencies as Body[];
        if (parents.length === 0 || r.chance(0.3)) {
          await ok("DELETE", `${BASE}/features/${flag}/dependencies`);
          return "no dependencies";
        }
        const parent = r.pick(parents).feature;
        await ok("DELETE", `${BASE}/features/${flag}/dependencies/${parent}`);
        return `no dependency on ${parent}`;
      }
    }
  };

  describe("a flag changed forty times", () => {
    const flag = "rb-flag";
    /** By version: what SDKs were served, and what the admin API showed, right after it. */
    const served_: Map<number, Awaited<ReturnType<typeof servedEverywhere>>> = new Map();
    const shown_: Map<number, Awaited<ReturnType<typeof shown>>> = new Map();
    const order: number[] = [];
    const done: string[] = [];
    const r = random(SEED);

    const capture = async () => {
      const version = await newest(flag);
      if (!served_.has(version)) order.push(version);
      served_.set(version, await servedEverywhere(flag));
      shown_.set(version, await shown(flag));
      return version;
    };

    beforeAll(async () => {
      await ok("POST", `${BASE}/features`, { name: flag });
      await capture();
      for (const kind of deck(r, CHANGES)) {
        done.push(await randomChange(r, flag, kind));
        await capture();
      }
    });

    it("lists one version per change, newest first, with who made it", async () => {
      // The sequence did a bit of everything.
      for (const words of [
        "on",
        "off",
        "add strategy",
        "update strategy",
        "patch strategy",
        "remove strategy",
      ])
        expect(
          done.some((what) => what.includes(words)),
          words,
        ).toBe(true);
      for (const words of ["reorder", "variants everywhere", ": variants", "depend on", "no dependenc"])
        expect(
          done.some((what) => what.includes(words)),
          words,
        ).toBe(true);
      const versions = await versionsOf(flag);
      expect(versions.map((version) => version.eventId)).toEqual([...order].reverse());
      expect(versions.at(-1)).toMatchObject({ type: "feature-created", createdBy: expect.any(String) });
      for (const version of versions) {
        expect(version.events.at(-1).id).toBe(version.eventId);
        expect(version.type).toBe(version.events.at(-1).type);
      }
      const page = await ok("GET", `${BASE}/features/${flag}/versions?limit=2&offset=1`);
      expect(page.total).toBe(versions.length);
      expect(page.versions.map((version: Body) => version.eventId)).toEqual(
        versions.slice(1, 3).map((version) => version.eventId),
      );
    });

    it("rebuilds what the flag was at every version from the event log", async () => {
      for (const version of order) {
        const plan = await ok("GET", `${BASE}/features/${flag}/versions/${version}/restore`);
        expect(plan.blockers).toEqual([]);
        const captured = shown_.get(version)!;
        for (const env of plan.environments) {
          expect(env.restored, `${env.environment} at ${version}`).toEqual(
            captured.environments[env.environment],
          );
        }
        expect(plan.dependencies.restored, `dependencies at ${version}`).toEqual(captured.dependencies);
      }
      // The newest version is what the flag is: nothing to change.
      const plan = await ok("GET", `${BASE}/features/${flag}/versions/${order.at(-1)}/restore`);
      expect(plan.changes).toEqual([]);
    });

    it("restores every version, one after the other, as SDKs were served it then", async () => {
      let previous = await servedEverywhere(flag);
      let beforeLast = previous;
      for (const version of r.shuffle(order)) {
        const reply = await restore(flag, version);
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect(reply.body.version.eventId).toBe(version);
        expect(reply.body.changeRequests).toEqual([]);
        const now = await servedEverywhere(flag);
        expect(now, `version ${version}`).toEqual(served_.get(version));
        if (reply.body.changes.length > 0) {
          const versions = await versionsOf(flag);
          expect(reply.body.restoredAs).toBe(versions[0].eventId);
          expect(versions[0]).toMatchObject({ type: "feature-version-restored", environment: null });
          const event = await server.db
            .selectFrom("events")
            .selectAll()
            .where("id", "=", reply.body.restoredAs)
            .executeTakeFirstOrThrow();
          expect(event.data).toEqual({ version, environment: null });
          beforeLast = previous;
        } else {
          expect(reply.body.restoredAs).toBeNull();
        }
        previous = now;
      }
      // The last restore is a version too: restoring the one before it undoes it.
      const [last, before] = await versionsOf(flag);
      expect(last.type).toBe("feature-version-restored");
      expect((await restore(flag, before.eventId)).status).toBe(200);
      expect(await servedEverywhere(flag)).toEqual(beforeLast);
    });

    it("still rebuilds every version after restores, with the strategies' ids of the time", async () => {
      for (const version of order) {
        const plan = await ok("GET", `${BASE}/features/${flag}/versions/${version}/restore`);
        for (const env of plan.environments) {
          expect(env.restored, `${env.environment} at ${version}`).toEqual(
            shown_.get(version)!.environments[env.environment],
          );
        }
      }
    });

    it("restores one environment alone, leaving the other and the dependencies as they are", async () => {
      const target = order.find(
        (version) =>
          JSON.stringify(served_.get(version)!.development) !==
          JSON.stringify(served_.get(order.at(-1)!)!.development),
      )!;
      expect((await restore(flag, order.at(-1)!)).status).toBe(200);
      const before = await servedEverywhere(flag);
      const dependencies = (await shown(flag)).dependencies;
      const plan = await ok(
        "GET",
        `${BASE}/features/${flag}/versions/${target}/restore?environment=development`,
      );
      expect(plan.environment).toBe("development");
      expect(plan.dependencies).toBeNull();
      expect(plan.environments.map((env: Body) => env.environment)).toEqual(["development"]);
      expect(plan.changes.every((change: Body) => change.environment === "development")).toBe(true);
      const reply = await restore(flag, target, { environment: "development" });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(await served(flag, "production")).toEqual(before.production);
      expect((await shown(flag)).dependencies).toEqual(dependencies);
      const { dependencies: _deps, ...developmentThen } = served_.get(target)!.development;
      const { dependencies: _now, ...developmentNow } = await served(flag, "development");
      expect(developmentNow).toEqual(developmentThen);
      const [restored] = await versionsOf(flag);
      expect(restored).toMatchObject({ type: "feature-version-restored", environment: "development" });
    });
  });

  describe("what the plan writes", () => {
    it("writes a strategy anew where a title must go, which an update cannot clear", async () => {
      const flag = "rb-title";
      await ok("POST", `${BASE}/features`, { name: flag });
      const strategy = await ok("POST", `${BASE}/features/${flag}/environments/development/strategies`, {
        name: "default",
      });
      const untitled = await newest(flag);
      await ok("PUT", `${BASE}/features/${flag}/environments/development/strategies/${strategy.id}`, {
        name: "default",
        title: "everyone",
      });
      const plan = await ok("GET", `${BASE}/features/${flag}/versions/${untitled}/restore`);
      expect(plan.changes.map((change: Body) => change.action)).toEqual(["addStrategy", "deleteStrategy"]);
      expect((await restore(flag, untitled)).status).toBe(200);
      const [now] = (await shown(flag)).environments.development.strategies;
      expect(now).toMatchObject({ name: "default", title: null, sortOrder: 0 });
      expect(now.id).not.toBe(strategy.id);
    });

    it("keeps the order of strategies that shared a position, numbering them anew", async () => {
      const flag = "rb-ties";
      await ok("POST", `${BASE}/features`, { name: flag });
      const path = `${BASE}/features/${flag}/environments/production/strategies`;
      const added = [];
      for (const userIds of ["first", "second", "third"])
        added.push(await ok("POST", path, { name: "userWithId", parameters: { userIds }, sortOrder: 5 }));
      await ok("POST", `${BASE}/features/${flag}/environments/production/on`);
      const version = await newest(flag);
      const then = await served(flag, "production");
      expect(then.strategies.map((strategy: Body) => strategy.parameters.userIds)).toEqual([
        "first",
        "second",
        "third",
      ]);
      await ok("DELETE", `${path}/${added[0].id}`);
      await ok("POST", `${path}/set-sort-order`, [
        { id: added[2].id, sortOrder: 0 },
        { id: added[1].id, sortOrder: 1 },
      ]);
      const plan = await ok("GET", `${BASE}/features/${flag}/versions/${version}/restore`);
      const production = plan.environments.find((env: Body) => env.environment === "production");
      expect(production.restored.strategies.map((strategy: Body) => strategy.sortOrder)).toEqual([0, 1, 2]);
      expect((await restore(flag, version)).status).toBe(200);
      expect(await served(flag, "production")).toEqual(then);
    });

    it("hides versions that name a project the caller may not see", async () => {
      const created = await call("POST", "/api/admin/projects", {
        id: "rb-hidden",
        name: "Hidden",
        mode: "private",
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const flag = "rb-moved";
      await ok("POST", "/api/admin/projects/rb-hidden/features", { name: flag });
      await ok("POST", `/api/admin/projects/rb-hidden/features/${flag}/environments/development/strategies`, {
        name: "default",
      });
      const secret = await newest(flag, "rb-hidden");
      await ok("PATCH", `/api/admin/projects/rb-hidden/features/${flag}`, [
        { op: "replace", path: "/project", value: "default" },
      ]);
      await ok("POST", `${BASE}/features/${flag}/environments/development/on`);
      const outsider = await createUser(server, { rootRole: "Editor" });
      const cookie = await login(server, outsider.username, outsider.password);
      const as = (path: string) => server.request(path, { token: null, headers: { cookie } });
      const seen = (await as(`${BASE}/features/${flag}/versions`)).body.versions;
      expect(seen.map((version: Body) => version.type)).toEqual(["feature-environment-enabled"]);
      expect((await as(`${BASE}/features/${flag}/versions/${secret}/restore`)).status).toBe(404);
      // Whoever sees the project it came from sees its whole history, moved or not.
      const all = await versionsOf(flag);
      expect(all.map((version) => version.type)).toEqual([
        "feature-environment-enabled",
        "feature-strategy-add",
        "feature-created",
      ]);
      const plan = await ok("GET", `${BASE}/features/${flag}/versions/${secret}/restore`);
      expect(plan.blockers).toEqual([]);
      expect(plan.changes.map((change: Body) => change.action)).toEqual(["updateEnabled"]);
    });
  });

  describe("refusals", () => {
    it("answers 404 for an unknown project, flag, version or environment, and another flag's event", async () => {
      await ok("POST", `${BASE}/features`, { name: "rb-other" });
      await ok("POST", `${BASE}/features`, { name: "rb-known" });
      const other = await newest("rb-other");
      const known = await newest("rb-known");
      for (const [path, status] of [
        [`/api/admin/projects/nowhere/features/rb-known/versions`, 404],
        [`${BASE}/features/rb-missing/versions`, 404],
        [`${BASE}/features/rb-known/versions/${other}/restore`, 404],
        [`${BASE}/features/rb-known/versions/999999/restore`, 404],
        [`${BASE}/features/rb-known/versions/${known}/restore?environment=staging`, 404],
      ] as const) {
        const reply = await call("GET", path);
        expect(reply.status, path).toBe(status);
        expect(reply.body).toMatchObject({ name: "NotFoundError", id: expect.any(String) });
      }
      const refused = await restore("rb-known", other);
      expect(refused.status).toBe(404);
      expect(refused.body.message).toContain(`rb-known has no version ${other}`);
    });

    it("does not reach back into a deleted flag of the same name", async () => {
      await ok("POST", `${BASE}/features`, { name: "rb-again" });
      await ok("POST", `${BASE}/features/rb-again/environments/development/on`);
      const old = await newest("rb-again");
      await ok("POST", `${BASE}/archive`, { features: ["rb-again"] });
      await ok("POST", `${BASE}/delete`, { features: ["rb-again"] });
      await ok("POST", `${BASE}/features`, { name: "rb-again" });
      expect((await versionsOf("rb-again")).map((version) => version.type)).toEqual(["feature-created"]);
      expect((await preview("rb-again", old)).status).toBe(404);
    });

    it("names a deleted segment, and changes nothing", async () => {
      const flag = "rb-segment";
      await ok("POST", `${BASE}/features`, { name: flag });
      const segment = (await ok("POST", "/api/admin/segments", { name: "short-lived", constraints: [] })).id;
      const strategy = await ok("POST", `${BASE}/features/${flag}/environments/development/strategies`, {
        name: "default",
        segments: [segment],
      });
      await ok("POST", `${BASE}/features/${flag}/environments/development/on`);
      const version = await newest(flag);
      await ok("DELETE", `${BASE}/features/${flag}/environments/development/strategies/${strategy.id}`);
      await ok("DELETE", `/api/admin/segments/${segment}`);
      const plan = await ok("GET", `${BASE}/features/${flag}/versions/${version}/restore`);
      expect(plan.blockers).toEqual([{ message: `Segment short-lived (id ${segment}) has been deleted.` }]);
      const before = await fingerprint(server);
      const reply = await restore(flag, version);
      expect(reply.status).toBe(409);
      expect(reply.body).toMatchObject({ name: "ConflictError", id: expect.any(String) });
      expect(reply.body.message).toContain(`Segment short-lived (id ${segment}) has been deleted.`);
      expect(reply.body.details).toEqual([
        { message: `Segment short-lived (id ${segment}) has been deleted.` },
      ]);
      expect(await fingerprint(server)).toEqual(before);
    });

    it("names a deleted context field, strategy type and parent flag", async () => {
      const flag = "rb-gone";
      await ok("POST", `${BASE}/features`, { name: flag });
      await ok("POST", "/api/admin/context", { name: "tenant" });
      await ok("POST", "/api/admin/strategies", { name: "rb-custom", parameters: [] });
      await ok("POST", `${BASE}/features`, { name: "rb-doomed-parent" });
      const strategies = [
        await ok("POST", `${BASE}/features/${flag}/environments/production/strategies`, {
          name: "default",
          constraints: [{ contextName: "tenant", operator: "IN", values: ["acme"] }],
        }),
        await ok("POST", `${BASE}/features/${flag}/environments/production/strategies`, {
          name: "rb-custom",
        }),
      ];
      await ok("POST", `${BASE}/features/${flag}/dependencies`, { feature: "rb-doomed-parent" });
      const version = await newest(flag);
      for (const strategy of strategies)
        await ok("DELETE", `${BASE}/features/${flag}/environments/production/strategies/${strategy.id}`);
      await ok("DELETE", `${BASE}/features/${flag}/dependencies`);
      await ok("DELETE", "/api/admin/context/tenant");
      await ok("DELETE", "/api/admin/strategies/rb-custom");
      await ok("POST", `${BASE}/archive`, { features: ["rb-doomed-parent"] });
      const archived = await ok("GET", `${BASE}/features/${flag}/versions/${version}/restore`);
      expect(archived.blockers.map((blocker: Body) => blocker.message)).toEqual([
        "Strategy type rb-custom no longer exists.",
        "Context field tenant has been deleted.",
        "Parent flag rb-doomed-parent is archived.",
      ]);
      await ok("POST", `${BASE}/delete`, { features: ["rb-doomed-parent"] });
      const before = await fingerprint(server);
      const reply = await restore(flag, version);
      expect(reply.status).toBe(409);
      expect(reply.body.details.map((detail: Body) => detail.message)).toEqual([
        "Strategy type rb-custom no longer exists.",
        "Context field tenant has been deleted.",
        "Parent flag rb-doomed-parent has been deleted.",
      ]);
      expect(await fingerprint(server)).toEqual(before);
      // Production alone needs no parent.
      const production = await ok(
        "GET",
        `${BASE}/features/${flag}/versions/${version}/restore?environment=production`,
      );
      expect(production.blockers.map((blocker: Body) => blocker.message)).toEqual([
        "Strategy type rb-custom no longer exists.",
        "Context field tenant has been deleted.",
      ]);
    });

    it("refuses versions older than an event that did not record what it replaced", async () => {
      const flag = "rb-legacy";
      await ok("POST", `${BASE}/features`, { name: flag });
      const path = `${BASE}/features/${flag}/environments/development/strategies`;
      const first = await ok("POST", path, { name: "default" });
      const second = await ok("POST", path, { name: "userWithId", parameters: { userIds: "u1" } });
      const older = await newest(flag);
      await ok("POST", `${path}/set-sort-order`, [
        { id: second.id, sortOrder: 0 },
        { id: first.id, sortOrder: 1 },
      ]);
      const reordered = await newest(flag);
      await ok("POST", `${BASE}/features/${flag}/environments/production/on`);
      // As an event written before events kept the positions they replaced.
      await server.db.updateTable("events").set({ pre_data: null }).where("id", "=", reordered).execute();
      const plan = await ok("GET", `${BASE}/features/${flag}/versions/${older}/restore`);
      expect(plan.blockers).toEqual([
        {
          message: `What ${flag} was in development at version ${older} is not known: event ${reordered} (strategy-order-changed) was recorded before events kept the positions it replaced.`,
          path: "environments.development",
        },
      ]);
      expect(plan.environments.find((env: Body) => env.environment === "development").restored).toBeNull();
      expect((await restore(flag, older)).status).toBe(409);
      // Production alone is known, and so is every version from the reorder on.
      expect((await restore(flag, older, { environment: "production" })).status).toBe(200);
      expect((await preview(flag, reordered)).body.blockers).toEqual([]);
    });

    it("asks for the permission of each change, as its own route would", async () => {
      const flag = "rb-permissions";
      await ok("POST", `${BASE}/features`, { name: flag });
      const version = await newest(flag);
      await ok("POST", `${BASE}/features/${flag}/environments/production/strategies`, { name: "default" });
      const viewer = await createUser(server, { rootRole: "Viewer" });
      const cookie = await login(server, viewer.username, viewer.password);
      const as = (method: string, path: string, body?: unknown) =>
        server.request(path, { method, body, token: null, headers: { cookie } });
      expect((await as("GET", `${BASE}/features/${flag}/versions`)).status).toBe(200);
      expect((await as("GET", `${BASE}/features/${flag}/versions/${version}/restore`)).status).toBe(200);
      const before = await fingerprint(server);
      const refused = await as("POST", `${BASE}/features/${flag}/versions/${version}/restore`, {});
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain('"DELETE_FEATURE_STRATEGY" permission');
      expect(refused.body.message).toContain('environment "production"');
      expect(await fingerprint(server)).toEqual(before);
      const sdk = await server.request(`${BASE}/features/${flag}/versions`, { token: CLIENT_TOKEN });
      expect(sdk.status).toBe(403);
    });

    it("brings back where a revived flag was on, and a link its deleted parent took along", async () => {
      const flag = "rb-revived";
      await ok("POST", `${BASE}/features`, { name: flag });
      await ok("POST", `${BASE}/features`, { name: "rb-short-parent" });
      await ok("POST", `${BASE}/features/${flag}/dependencies`, { feature: "rb-short-parent" });
      await ok("POST", `${BASE}/features/${flag}/environments/development/on`);
      const on = await newest(flag);
      const wasServed = await served(flag, "development");
      await ok("POST", `${BASE}/archive`, { features: [flag, "rb-short-parent"] });
      await ok("POST", `${BASE}/delete`, { features: ["rb-short-parent"] });
      await ok("POST", `${BASE}/revive`, { features: [flag] });
      expect((await served(flag, "development")).enabled).toBe(false);
      // Its link went with the parent, recorded on the flag.
      const [revived, unlinked] = await versionsOf(flag);
      expect(revived.type).toBe("feature-revived");
      expect(unlinked.events.map((event: Body) => event.type)).toEqual(["feature-dependency-removed"]);
      const whole = await ok("GET", `${BASE}/features/${flag}/versions/${on}/restore`);
      expect(whole.blockers).toEqual([{ message: "Parent flag rb-short-parent has been deleted." }]);
      const reply = await restore(flag, on, { environment: "development" });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      const { dependencies: _gone, ...then } = wasServed;
      expect(await served(flag, "development")).toEqual(then);
    });
  });
});

describe("restoring where change requests are required", () => {
  let server: TestServer;
  let prodToken: string;
  let devToken: string;
  // Editors may change the default project's flags: they are who drafts and reviews here.
  const PROJECT = "/api/admin/projects/default";
  const flag = "rb-reviewed";

  // biome-ignore lint/suspicious/noExplicitAny: tests assert on bodies rather than type them
  type Person = { cookie: string; as: (method: string, path: string, body?: unknown) => Promise<Reply<any>> };
  let alice: Person;
  let bob: Person;
  const personWith = async (): Promise<Person> => {
    const user = await createUser(server, { rootRole: "Editor" });
    const cookie = await login(server, user.username, user.password);
    return {
      cookie,
      as: (method, path, body) => server.request(path, { method, body, token: null, headers: { cookie } }),
    };
  };
  const ok = async (method: string, path: string, body?: unknown): Promise<Body> => {
    const reply = await server.request(path, { method, body });
    expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
    return reply.body;
  };
  const servedIn = async (token: string) =>
    (await server.request(`/api/client/features/${flag}`, { token })).body;

  beforeAll(async () => {
    server = await startTestServer();
    prodToken = (
      await ok("POST", "/api/admin/api-tokens", {
        tokenName: "gated-production",
        type: "client",
        environment: "production",
        projects: ["default"],
      })
    ).secret;
    devToken = (
      await ok("POST", "/api/admin/api-tokens", {
        tokenName: "gated-development",
        type: "client",
        environment: "development",
        projects: ["default"],
      })
    ).secret;
    await ok("PUT", `${PROJECT}/environments/production/change-requests/config`, {
      changeRequestsEnabled: true,
      requiredApprovals: 1,
    });
    alice = await personWith();
    bob = await personWith();
  });
  afterAll(() => server?.close());

  it("refuses a direct restore, and drafts it for review instead; applied, it is the version", async () => {
    await ok("POST", `${PROJECT}/features`, { name: "rb-gated-parent" });
    await ok("POST", `${PROJECT}/features`, { name: flag });
    // The admin token may skip change requests: it writes the history.
    const strategy = await ok("POST", `${PROJECT}/features/${flag}/environments/production/strategies`, {
      name: "flexibleRollout",
      parameters: { rollout: "30", stickiness: "default", groupId: flag },
      variants: [
        { name: "b", weight: 0, weightType: "variable", stickiness: "default" },
        { name: "a", weight: 0, weightType: "variable", stickiness: "default" },
        { name: "c", weight: 0, weightType: "variable", stickiness: "default" },
      ],
    });
    await ok("POST", `${PROJECT}/features/${flag}/environments/production/strategies`, {
      name: "default",
      title: "all",
    });
    await ok("PUT", `${PROJECT}/features/${flag}/environments/production/variants`, [
      { name: "x", weight: 0, weightType: "variable", stickiness: "default" },
      { name: "y", weight: 0, weightType: "variable", stickiness: "default" },
      { name: "z", weight: 0, weightType: "variable", stickiness: "default" },
    ]);
    await ok("POST", `${PROJECT}/features/${flag}/environments/production/on`);
    await ok("POST", `${PROJECT}/features/${flag}/environments/development/on`);
    await ok("POST", `${PROJECT}/features/${flag}/dependencies`, { feature: "rb-gated-parent" });
    const version = (await ok("GET", `${PROJECT}/features/${flag}/versions`)).versions[0].eventId;
    const then = { development: await servedIn(devToken), production: await servedIn(prodToken) };

    await ok("PUT", `${PROJECT}/features/${flag}/environments/production/strategies/${strategy.id}`, {
      name: "flexibleRollout",
      parameters: { rollout: "90", stickiness: "default", groupId: flag },
    });
    const list = await ok("GET", `${PROJECT}/features/${flag}/environments/production/strategies`);
    await ok("DELETE", `${PROJECT}/features/${flag}/environments/production/strategies/${list[1].id}`);
    await ok("PUT", `${PROJECT}/features/${flag}/environments/production/variants`, []);
    await ok("POST", `${PROJECT}/features/${flag}/environments/development/off`);
    await ok("DELETE", `${PROJECT}/features/${flag}/dependencies`);
    expect((await servedIn(prodToken)).strategies).toHaveLength(1);

    const before = await fingerprint(server);
    const direct = await alice.as("POST", `${PROJECT}/features/${flag}/versions/${version}/restore`, {});
    expect(direct.status).toBe(403);
    expect(direct.body.message).toContain("requires change requests");
    expect(await fingerprint(server)).toEqual(before);

    const drafted = await alice.as("POST", `${PROJECT}/features/${flag}/versions/${version}/restore`, {
      changeRequest: true,
    });
    expect(drafted.status, JSON.stringify(drafted.body)).toBe(200);
    expect(drafted.body.changeRequests).toEqual([{ environment: "production", id: expect.any(Number) }]);
    // Development needs no review: it is restored at once, and recorded as a version.
    expect(drafted.body.restoredAs).toEqual(expect.any(Number));
    expect((await servedIn(devToken)).enabled).toBe(true);
    expect((await servedIn(prodToken)).strategies).toHaveLength(1);

    const id = drafted.body.changeRequests[0].id;
    const request = await alice.as("GET", `${PROJECT}/change-requests/${id}`);
    const actions = request.body.features[0].changes.map((change: Body) => change.action);
    expect(actions).toEqual(
      expect.arrayContaining(["updateStrategy", "addStrategy", "patchVariant", "addDependency"]),
    );
    // A second restore into the same draft is refused: it would mix with the first.
    const again = await alice.as("POST", `${PROJECT}/features/${flag}/versions/${version}/restore`, {
      changeRequest: true,
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(`draft change request ${id}`);

    for (const [who, state] of [
      [alice, "In review"],
      [bob, "Approved"],
      [alice, "Applied"],
    ] as const) {
      const moved = await who.as("PUT", `${PROJECT}/change-requests/${id}/state`, { state });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    }
    expect(await servedIn(prodToken)).toEqual(then.production);
    expect(await servedIn(devToken)).toEqual(then.development);
  });
});
