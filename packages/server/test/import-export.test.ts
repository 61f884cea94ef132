import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { latestEvent } from "./support/fixtures.js";
import { createUser, login, type RootRole } from "./support/people.js";
import { CLIENT_TOKEN, type Reply, startTestServer, type TestServer } from "./support/server.js";

// Export and import (`/api/admin/features-batch`) driven over HTTP: a source service whose
// flags use every part of the file, a target service they move to, and the refusals.

const FLAGS = "/api/admin/projects/default/features";
const DEV = "environments/development";

// biome-ignore lint/suspicious/noExplicitAny: tests assert on bodies rather than type them
type Body = any;

/** A personal access token of a new user with the root role: imports refuse admin tokens. */
async function personalToken(server: TestServer, rootRole: RootRole): Promise<string> {
  const user = await createUser(server, { rootRole });
  const cookie = await login(server, user.username, user.password);
  const created = await server.request("/api/admin/user/tokens", {
    method: "POST",
    token: null,
    headers: { cookie },
    body: { description: "import", expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.secret;
}

async function ok(reply: Promise<Reply>): Promise<Body> {
  const answer = await reply;
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return answer.body;
}

/** What an SDK is served, by flag, with what differs between instances alone (ids) taken out. */
async function served(server: TestServer): Promise<Body> {
  const document = (await ok(server.request("/api/client/features", { token: CLIENT_TOKEN }))) as Body;
  const segments = new Map<number, string>((document.segments ?? []).map((s: Body) => [s.id, s.name]));
  return Object.fromEntries(
    document.features.map((flag: Body) => [
      flag.name,
      {
        ...flag,
        project: undefined,
        strategies: flag.strategies.map((strategy: Body) => ({
          ...strategy,
          id: undefined,
          segments: strategy.segments?.map((id: number) => segments.get(id)),
        })),
      },
    ]),
  );
}

describe.each(databaseKinds)("import and export (%s)", (kind) => {
  let source: TestServer;
  let target: TestServer;
  let importer: string;
  let file: Body;

  const importTo = (server: TestServer, token: string, body: unknown, path = "import") =>
    server.request(`/api/admin/features-batch/${path}`, { method: "POST", token, body });
  const flagCount = async (server: TestServer) =>
    Number(
      (
        await server.db
          .selectFrom("features")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirst()
      )?.n,
    );

  beforeAll(async () => {
    [source, target] = await Promise.all([startTestServer(kind), startTestServer(kind)]);
    const admin = (path: string, body: unknown, method = "POST") =>
      ok(source.request(path, { method, body }));
    await admin("/api/admin/context", { name: "plan", legalValues: [{ value: "free" }, { value: "pro" }] });
    await admin("/api/admin/context", { name: "tenant", stickiness: true });
    await admin("/api/admin/tag-types", { name: "team", description: "Owning team" });
    for (const server of [source, target]) {
      await ok(
        server.request("/api/admin/segments", {
          method: "POST",
          body: { name: "beta", constraints: [{ contextName: "plan", operator: "IN", values: ["pro"] }] },
        }),
      );
    }
    const segment = (await ok(source.request("/api/admin/segments"))).segments[0].id;
    await admin(FLAGS, { name: "checkout", type: "experiment", description: "New checkout" });
    await admin(`${FLAGS}/checkout/${DEV}/strategies`, {
      name: "flexibleRollout",
      parameters: { rollout: "40", stickiness: "tenant", groupId: "checkout" },
      constraints: [{ contextName: "plan", operator: "IN", values: ["pro", "free"] }],
      segments: [segment],
      variants: [{ name: "blue", weight: 1000, weightType: "variable", stickiness: "default" }],
    });
    await admin(`${FLAGS}/checkout/${DEV}/strategies`, {
      name: "userWithId",
      parameters: { userIds: "a,b" },
    });
    await admin(
      `${FLAGS}/checkout/${DEV}/variants`,
      [
        { name: "red", weight: 500, weightType: "variable", stickiness: "default" },
        { name: "green", weight: 500, weightType: "variable", stickiness: "default" },
      ],
      "PUT",
    );
    await admin(`${FLAGS}/checkout/${DEV}/on`, undefined);
    await admin("/api/admin/features/checkout/tags", { type: "team", value: "payments" });
    await admin(FLAGS, { name: "checkout-banner" });
    await admin(`${FLAGS}/checkout-banner/${DEV}/strategies`, { name: "default" });
    await admin(`${FLAGS}/checkout-banner/dependencies`, { feature: "checkout", variants: ["blue"] });
    await admin(`${FLAGS}/checkout-banner/${DEV}/on`, undefined);
    await admin(FLAGS, { name: "dormant" });
    await admin(FLAGS, { name: "retired" });
    await admin(`${FLAGS}/retired`, undefined, "DELETE");
    importer = await personalToken(target, "Admin");
    file = await ok(
      source.request("/api/admin/features-batch/export", {
        method: "POST",
        body: { project: "default", environment: "development" },
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([source?.close(), target?.close()]);
  });

  it("exports a project's active flags in one environment, with what they use", async () => {
    expect(file.features.map((flag: Body) => flag.name).sort()).toEqual([
      "checkout",
      "checkout-banner",
      "dormant",
    ]);
    expect(file.features.find((flag: Body) => flag.name === "checkout")).toEqual({
      name: "checkout",
      type: "experiment",
      description: "New checkout",
      project: "default",
      stale: false,
      impressionData: false,
      archived: false,
    });
    expect(file.featureStrategies.filter((s: Body) => s.featureName === "checkout")).toMatchObject([
      {
        name: "flexibleRollout",
        parameters: { rollout: "40", stickiness: "tenant" },
        segments: [expect.any(Number)],
      },
      { name: "userWithId", parameters: { userIds: "a,b" } },
    ]);
    expect(file.featureEnvironments.find((env: Body) => env.name === "checkout")).toMatchObject({
      featureName: "checkout",
      environment: "development",
      enabled: true,
      variants: [{ name: "green" }, { name: "red" }],
    });
    expect(file.contextFields.map((field: Body) => field.name).sort()).toEqual(["plan", "tenant"]);
    expect(file.featureTags).toEqual([{ featureName: "checkout", tagType: "team", tagValue: "payments" }]);
    expect(file.segments).toEqual([{ id: expect.any(Number), name: "beta" }]);
    expect(file.tagTypes).toEqual([{ name: "team", description: "Owning team", icon: null }]);
    expect(file.dependencies).toEqual([
      {
        feature: "checkout-banner",
        dependencies: [{ feature: "checkout", enabled: true, variants: ["blue"] }],
      },
    ]);
    expect(await latestEvent(source, "features-exported")).toMatchObject({
      environment: "development",
      data: { features: expect.arrayContaining(["checkout", "dormant"]) },
    });
  });

  it("exports by name and by a tag's value, and offers the file as a download", async () => {
    const byName = await source.request("/api/admin/features-batch/export", {
      method: "POST",
      body: { features: ["dormant"], environment: "development", downloadFile: true },
    });
    expect(byName.body.features.map((flag: Body) => flag.name)).toEqual(["dormant"]);
    expect(byName.headers.get("content-disposition")).toMatch(/^attachment; filename="export-development-/);
    const byTag = await ok(
      source.request("/api/admin/features-batch/export", {
        method: "POST",
        body: { tag: "payments", environment: "development" },
      }),
    );
    expect(byTag.features.map((flag: Body) => flag.name)).toEqual(["checkout"]);
    const unknown = await source.request("/api/admin/features-batch/export", {
      method: "POST",
      body: { project: "default", environment: "nowhere" },
    });
    expect(unknown.status).toBe(404);
  });

  it("validates before anything is written, then imports: the target serves what the source does", async () => {
    const body = { project: "default", environment: "development", data: file };
    const report = await ok(importTo(target, importer, body, "validate"));
    expect(report).toEqual({ errors: [], warnings: [], permissions: [] });
    expect(await flagCount(target)).toBe(0);
    const imported = await importTo(target, importer, body);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body).toBeUndefined();
    expect(await served(target)).toEqual(await served(source));
    const tags = await ok(target.request("/api/admin/features/checkout/tags"));
    expect(tags.tags).toEqual([{ type: "team", value: "payments" }]);
    expect((await ok(target.request("/api/admin/context/plan"))).legalValues).toHaveLength(2);

    // Again: the flags are updated, not duplicated, and the target still serves the same.
    const again = await ok(importTo(target, importer, body, "validate"));
    expect(again.warnings).toEqual([
      {
        message: "The following features already exist in this project and will be overwritten:",
        affectedItems: ["checkout", "checkout-banner", "dormant"],
      },
    ]);
    expect((await importTo(target, importer, body)).status).toBe(200);
    expect(await served(target)).toEqual(await served(source));
  });

  it("records the reference's events of each operation, and features-imported last", async () => {
    const last = await target.db
      .selectFrom("events")
      .select(["id", "type", "project", "environment", "feature_name", "created_by"])
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(last).toMatchObject({ type: "features-imported", project: "default", environment: "development" });
    const types = new Set(
      (await target.db.selectFrom("events").select("type").execute()).map((event) => event.type),
    );
    for (const type of [
      "feature-created",
      "feature-environment-variants-updated",
      "tag-type-created",
      "feature-tagged",
      "context-field-created",
      "feature-strategy-add",
      "feature-environment-enabled",
      "feature-dependency-added",
      "feature-strategy-remove",
    ]) {
      expect(types, type).toContain(type);
    }
  });

  it("refuses admin tokens, as the reference does", async () => {
    const reply = await target.request("/api/admin/features-batch/import", {
      method: "POST",
      body: { project: "default", environment: "development", data: file },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/You can't use an admin token to import features/);
  });

  it("reports each kind of error, and an import with any writes nothing", async () => {
    const server = await startTestServer(kind);
    try {
      const token = await personalToken(server, "Admin");
      await ok(
        server.request("/api/admin/context", {
          method: "POST",
          body: { name: "plan", legalValues: [{ value: "free" }] },
        }),
      );
      await ok(
        server.request("/api/admin/projects", { method: "POST", body: { id: "other", name: "Other" } }),
      );
      await ok(
        server.request("/api/admin/projects/other/features", { method: "POST", body: { name: "dormant" } }),
      );
      await ok(
        server.request("/api/admin/projects/default/settings", {
          method: "PUT",
          body: { featureNaming: { pattern: "check.*", example: "checkout-x" } },
        }),
      );
      await ok(
        server.request("/api/admin/projects/default", {
          method: "PUT",
          body: { name: "Default", featureLimit: 1 },
        }),
      );
      const data = {
        ...file,
        features: [...file.features, { name: "checkout" }],
        featureStrategies: [...file.featureStrategies, { name: "noSuchStrategy", featureName: "dormant" }],
        dependencies: [...file.dependencies, { feature: "checkout", dependencies: [{ feature: "ghost" }] }],
      };
      const before = await flagCount(server);
      const report = await ok(
        importTo(server, token, { project: "default", environment: "development", data }, "validate"),
      );
      const byMessage = (start: string) =>
        report.errors.find((error: Body) => error.message.startsWith(start))?.affectedItems;
      expect(byMessage("We detected the following custom strategy")).toEqual(["noSuchStrategy"]);
      expect(byMessage("We detected the following context fields")).toEqual(["plan"]);
      expect(byMessage("You cannot import a features that already exist in other projects")).toEqual([
        "dormant (in project other)",
      ]);
      expect(byMessage("We detected the following features are duplicate")).toEqual(["checkout"]);
      expect(byMessage("Features imported into this project must match")).toEqual(["dormant"]);
      expect(byMessage("We detected you want to create 3 new features")).toEqual([]);
      expect(byMessage("We detected the following segments")).toEqual(["beta"]);
      expect(byMessage("We detected the following dependencies")).toEqual(["ghost"]);

      const refused = await importTo(server, token, { project: "default", environment: "development", data });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toBe("Some of the strategies you are trying to import are not supported.");
      expect(await flagCount(server)).toBe(before);
      expect(
        await server.db.selectFrom("events").select("id").where("type", "=", "features-imported").execute(),
      ).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("reports entries its writes would refuse, and rolls back a file that fails late", async () => {
    const server = await startTestServer(kind);
    try {
      const token = await personalToken(server, "Admin");
      await ok(
        server.request("/api/admin/segments", { method: "POST", body: { name: "beta", constraints: [] } }),
      );
      const badConstraint = {
        ...file,
        featureStrategies: [
          ...file.featureStrategies,
          {
            name: "default",
            featureName: "dormant",
            constraints: [{ contextName: "currentTime", operator: "DATE_AFTER", value: "tomorrow" }],
          },
        ],
      };
      const report = await ok(
        importTo(
          server,
          token,
          { project: "default", environment: "development", data: badConstraint },
          "validate",
        ),
      );
      expect(report.errors).toEqual([
        {
          message: "We detected entries that this service would refuse to write:",
          affectedItems: [expect.stringMatching(/^strategy default of dormant: .*constraints\.0/)],
        },
      ]);
      // A dependency two levels deep passes every check but the write of the last entry.
      const late = {
        ...file,
        features: [...file.features, { name: "grandchild" }],
        dependencies: [
          ...file.dependencies,
          { feature: "grandchild", dependencies: [{ feature: "checkout-banner" }] },
        ],
      };
      const lateReport = await ok(
        importTo(server, token, { project: "default", environment: "development", data: late }, "validate"),
      );
      expect(lateReport.errors).toEqual([]);
      const eventsBefore = (await server.db.selectFrom("events").select("id").execute()).length;
      const refused = await importTo(server, token, {
        project: "default",
        environment: "development",
        data: late,
      });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toMatch(/dependencies are one level deep/);
      expect(await flagCount(server)).toBe(0);
      expect(
        await server.db.selectFrom("tag_types").select("name").where("name", "=", "team").execute(),
      ).toEqual([]);
      expect((await server.db.selectFrom("events").select("id").execute()).length).toBe(eventsBefore);
    } finally {
      await server.close();
    }
  });

  it("skips flags archived on the target, with a warning", async () => {
    const server = await startTestServer(kind);
    try {
      const token = await personalToken(server, "Admin");
      await ok(
        server.request("/api/admin/segments", { method: "POST", body: { name: "beta", constraints: [] } }),
      );
      await ok(server.request(FLAGS, { method: "POST", body: { name: "dormant" } }));
      await ok(server.request(`${FLAGS}/dormant`, { method: "DELETE" }));
      const body = { project: "default", environment: "development", data: file };
      const report = await ok(importTo(server, token, body, "validate"));
      expect(report.warnings).toEqual([
        {
          message:
            "The following features will not be imported as they are currently archived. To import them, please unarchive them first:",
          affectedItems: ["dormant"],
        },
      ]);
      expect((await importTo(server, token, body)).status).toBe(200);
      const dormant = await ok(server.request("/api/admin/archive/features"));
      expect(dormant.features.map((flag: Body) => flag.name)).toEqual(["dormant"]);
      expect((await server.request(`${FLAGS}/checkout`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("asks the permissions the file needs, and sends changes to reviewed environments through review", async () => {
    const server = await startTestServer(kind);
    try {
      await ok(
        server.request("/api/admin/segments", { method: "POST", body: { name: "beta", constraints: [] } }),
      );
      const viewer = await personalToken(server, "Viewer");
      const body = { project: "default", environment: "development", data: file };
      const report = await ok(importTo(server, viewer, body, "validate"));
      expect(report.permissions).toEqual([
        {
          message: "We detected you are missing the following permissions:",
          affectedItems: [
            "UPDATE_FEATURE",
            "CREATE_TAG_TYPE",
            "CREATE_CONTEXT_FIELD",
            "CREATE_FEATURE_STRATEGY",
            "UPDATE_FEATURE_ENVIRONMENT_VARIANTS",
            "CREATE_FEATURE",
            "UPDATE_FEATURE_ENVIRONMENT",
            "UPDATE_FEATURE_DEPENDENCY",
          ],
        },
      ]);
      const refused = await importTo(server, viewer, body);
      expect(refused.status).toBe(403);
      expect(refused.body.name).toBe("NoAccessError");
      expect(await flagCount(server)).toBe(0);

      await ok(
        server.request("/api/admin/projects/default/environments/development/change-requests/config", {
          method: "PUT",
          body: { changeRequestsEnabled: true },
        }),
      );
      const owner = await personalToken(server, "Admin");
      const editor = await personalToken(server, "Editor");
      await ok(server.request("/api/admin/tag-types", { method: "POST", body: { name: "team" } }));
      await ok(
        server.request("/api/admin/context", {
          method: "POST",
          body: { name: "plan", legalValues: [{ value: "free" }, { value: "pro" }] },
        }),
      );
      await ok(server.request("/api/admin/context", { method: "POST", body: { name: "tenant" } }));
      const gated = await ok(importTo(server, editor, body, "validate"));
      expect(gated.errors).toEqual([]);
      expect(gated.warnings).toContainEqual({
        message:
          "This environment requires change requests: the import's changes to it will be added to your change request draft, and take effect once reviewed and applied:",
        affectedItems: ["development"],
      });
      // The flags are made at once; what they do in development waits for review.
      const development = async () =>
        (await server.request("/api/client/features", { token: CLIENT_TOKEN })).body.features.map(
          (flag: { name: string; enabled: boolean; strategies: unknown[] }) => [
            flag.name,
            flag.enabled,
            flag.strategies.length,
          ],
        );
      expect((await importTo(server, editor, body)).status).toBe(200);
      expect(await flagCount(server)).toBeGreaterThan(0);
      const unreviewed = await development();
      expect(
        unreviewed.every(
          ([, enabled, strategies]: [string, boolean, number]) => !enabled && strategies === 0,
        ),
      ).toBe(true);
      const [draft] = (
        await server.request("/api/admin/projects/default/change-requests/pending", { token: editor })
      ).body;
      expect(draft).toMatchObject({ state: "Draft", environment: "development" });
      const actions = draft.features.flatMap((feature: { changes: { action: string }[] }) =>
        feature.changes.map((change) => change.action),
      );
      expect(new Set(actions)).toEqual(
        new Set(["patchVariant", "addStrategy", "updateEnabled", "addDependency"]),
      );
      const state = (token: string, to: string) =>
        ok(
          server.request(`/api/admin/projects/default/change-requests/${draft.id}/state`, {
            method: "PUT",
            token,
            body: { state: to },
          }),
        );
      await state(editor, "In review");
      await state(await personalToken(server, "Editor"), "Approved");
      expect((await state(editor, "Applied")).state).toBe("Applied");
      const applied = await development();
      expect(
        applied.some(([, enabled, strategies]: [string, boolean, number]) => enabled && strategies > 0),
      ).toBe(true);
      // An admin holds SKIP_CHANGE_REQUEST, as in the reference.
      expect((await importTo(server, owner, body)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
