import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent } from "./support/fixtures.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

describe.each(databaseKinds)("flags (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    await server.request("/api/admin/projects", {
      method: "POST",
      body: { id: "checkout", name: "Checkout" },
    });
  });
  afterAll(() => server.close());

  const flags = "/api/admin/projects/default/features";
  const create = (body: unknown, project = "default") =>
    server.request(`/api/admin/projects/${project}/features`, { method: "POST", body });
  const flag = (name: string, project = "default") =>
    server.request(`/api/admin/projects/${project}/features/${name}`);
  const listed = async (query = "") =>
    (await server.request(`${flags}${query}`)).body.features.map((f: { name: string }) => f.name);
  const snapshot = async () => ({
    default: (await server.request(flags)).body,
    archived: (await server.request("/api/admin/archive/features")).body,
  });

  it("creates a flag with a row per project environment and records it", async () => {
    const created = await create({
      name: "new-checkout",
      type: "experiment",
      description: "The redesigned checkout",
      impressionData: true,
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: "new-checkout",
      type: "experiment",
      description: "The redesigned checkout",
      project: "default",
      enabled: false,
      stale: false,
      impressionData: true,
      archived: false,
      createdAt: expect.any(String),
      createdBy: { id: -42, name: "init-admin", imageUrl: "" },
      variants: [],
      tags: [],
      dependencies: [],
      children: [],
      lifecycle: { stage: "initial", enteredStageAt: expect.any(String) },
      environments: [
        { name: "development", type: "development", enabled: false, strategies: [], variants: [] },
        { name: "production", type: "production", enabled: false, strategies: [], variants: [] },
      ],
    });
    expect((await flag("new-checkout")).body).toEqual(created.body);
    expect((await server.request("/api/admin/features/new-checkout")).body).toEqual(created.body);
    expect(await latestEvent(server, "feature-created")).toMatchObject({
      project: "default",
      featureName: "new-checkout",
      createdBy: "init-admin",
      data: { name: "new-checkout", type: "experiment" },
    });
    // As the reference stores them: sorted by name, but otherwise as sent, weights unsettled.
    const withVariants = await create({
      name: "colours",
      variants: [
        { name: "red", weight: 1, weightType: "variable" },
        { name: "blue", weight: 3, stickiness: "userId" },
      ],
    });
    const asStored = [
      { name: "blue", weight: 3, stickiness: "userId" },
      { name: "red", weight: 1, weightType: "variable" },
    ];
    expect(withVariants.body.environments.map((env: { variants: unknown[] }) => env.variants)).toEqual([
      asStored,
      asStored,
    ]);
    const sdk = await server.request("/api/client/features/colours", { token: CLIENT_TOKEN });
    expect(sdk.body.variants).toEqual(asStored);
    expectInvalid(
      await create({
        name: "bad-colours",
        variants: [
          { name: "red", weight: 1 },
          { name: "red", weight: 1 },
        ],
      }),
      "variants.1.name",
    );
    expectInvalid(await create({ name: "bad-colours", variants: [{ name: "red" }] }), "variants.0.weight");
    expect((await flag("bad-colours")).status).toBe(404);
    const defaults = await create({ name: "plain" });
    expect(defaults.body).toMatchObject({ type: "release", description: null, impressionData: false });
  });

  it("refuses bad names, types, taken names and unknown projects, creating nothing", async () => {
    const before = await snapshot();
    expectInvalid(await create({ name: "has space" }), "name");
    expectInvalid(await create({ name: "" }), "name");
    expectInvalid(await create({ name: "x".repeat(101) }), "name");
    expectInvalid(await create({ name: "ok", type: "feature" }), "type");
    expectInvalid(await create({ type: "release" }), "name");
    const taken = await create({ name: "new-checkout" });
    expect(taken.status).toBe(409);
    expect(taken.body.name).toBe("NameExistsError");
    // Names are unique across projects, too.
    expect((await create({ name: "new-checkout" }, "checkout")).status).toBe(409);
    const nowhere = await create({ name: "lost" }, "nowhere");
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.name).toBe("NotFoundError");
    expect(await snapshot()).toEqual(before);

    const validate = (name: string) =>
      server.request("/api/admin/features/validate", { method: "POST", body: { name } });
    expect((await validate("free-name")).status).toBe(200);
    expect((await validate("new-checkout")).status).toBe(409);
  });

  it("enforces the project's naming pattern on create", async () => {
    await server.request("/api/admin/projects/checkout/settings", {
      method: "PUT",
      body: { featureNaming: { pattern: "co-.+", example: "co-banner" } },
    });
    const refused = await create({ name: "banner" }, "checkout");
    expectInvalid(refused, "name");
    expect(refused.body.details[0].message).toContain("co-banner");
    expect((await create({ name: "co-banner" }, "checkout")).status).toBe(200);
    expect(await listed()).not.toContain("co-banner");
    expect((await flag("co-banner")).status).toBe(404);
    expect((await flag("co-banner", "checkout")).status).toBe(200);
  });

  it("lists a project's flags (endpoint 14), by name prefix and tag", async () => {
    await create({ name: "new-search", tags: [{ type: "simple", value: "team-search" }] });
    const listing = await server.request(flags);
    expect(listing.status).toBe(200);
    expect(listing.body.version).toBe(2);
    const entry = listing.body.features.find((f: { name: string }) => f.name === "new-search");
    expect(entry).toEqual({
      name: "new-search",
      type: "release",
      description: null,
      stale: false,
      favorite: false,
      impressionData: false,
      createdAt: expect.any(String),
      lastSeenAt: null,
      environments: [
        {
          name: "development",
          type: "development",
          enabled: false,
          sortOrder: expect.any(Number),
          variantCount: 0,
          lastSeenAt: null,
          hasStrategies: false,
          hasEnabledStrategies: false,
        },
        expect.objectContaining({ name: "production", type: "production" }),
      ],
      tags: [{ type: "simple", value: "team-search" }],
    });
    // Newest first, as the reference lists them.
    expect(await listed("?namePrefix=new-")).toEqual(["new-search", "new-checkout"]);
    expect(await listed("?tag=simple:team-search")).toEqual(["new-search"]);
    expectInvalid(await server.request(`${flags}?tag=no-colon`), "tag");
  });

  it("updates metadata with PUT and JSON Patch, recording what it was", async () => {
    const put = await server.request(`${flags}/plain`, {
      method: "PUT",
      body: { type: "operational", description: "Plainly", impressionData: true },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ type: "operational", description: "Plainly", impressionData: true });
    const event = await latestEvent(server, "feature-metadata-updated");
    expect(event.preData).toMatchObject({ type: "release", description: null });
    expect(event.data).toMatchObject({ type: "operational", description: "Plainly" });

    const patch = await server.request(`${flags}/plain`, {
      method: "PATCH",
      body: [
        { op: "replace", path: "/description", value: "Patched" },
        { op: "replace", path: "/stale", value: true },
      ],
    });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ description: "Patched", stale: true, type: "operational" });
    expect(await latestEvent(server, "feature-stale-on")).toMatchObject({ featureName: "plain" });

    const before = (await flag("plain")).body;
    expectInvalid(
      await server.request(`${flags}/plain`, {
        method: "PATCH",
        body: [{ op: "replace", path: "/type", value: "nonsense" }],
      }),
      "type",
    );
    expectInvalid(await server.request(`${flags}/plain`, { method: "PUT", body: { stale: "yes" } }), "stale");
    expect((await server.request(`${flags}/missing`, { method: "PUT", body: {} })).status).toBe(404);
    expect((await flag("plain")).body).toEqual(before);
  });

  it("moves a flag to another project with a JSON Patch of /project", async () => {
    await create({ name: "moving" });
    const moved = await server.request(`${flags}/moving`, {
      method: "PATCH",
      body: [{ op: "replace", path: "/project", value: "checkout" }],
    });
    expect(moved.status).toBe(200);
    expect(moved.body.project).toBe("checkout");
    expect(await latestEvent(server, "feature-project-change")).toMatchObject({
      featureName: "moving",
      data: { oldProject: "default", newProject: "checkout" },
    });
    const nowhere = await server.request("/api/admin/projects/checkout/features/moving", {
      method: "PATCH",
      body: [{ op: "replace", path: "/project", value: "nowhere" }],
    });
    expect(nowhere.status).toBe(404);
    expect((await flag("moving", "checkout")).status).toBe(200);
  });

  it("marks flags stale and fresh in bulk", async () => {
    const stale = (features: string[], value: boolean) =>
      server.request("/api/admin/projects/default/stale", {
        method: "POST",
        body: { features, stale: value },
      });
    expect((await stale(["new-checkout", "new-search"], true)).status).toBe(202);
    expect((await flag("new-search")).body.stale).toBe(true);
    expect((await stale(["new-search", "missing"], false)).status).toBe(404);
    expect((await flag("new-search")).body.stale).toBe(true);
    await stale(["new-checkout", "new-search"], false);
    expect((await flag("new-checkout")).body.stale).toBe(false);
    expect(await latestEvent(server, "feature-stale-off")).toMatchObject({ data: { stale: false } });
  });

  it("switches an environment on with a 100% rollout when it has no strategy, and off again", async () => {
    const on = await server.request(`${flags}/new-checkout/environments/production/on`, { method: "POST" });
    expect(on.status).toBe(200);
    const production = (await flag("new-checkout")).body.environments[1];
    expect(production).toMatchObject({
      name: "production",
      enabled: true,
      strategies: [
        {
          name: "flexibleRollout",
          parameters: { rollout: "100", stickiness: "default", groupId: "new-checkout" },
          constraints: [],
        },
      ],
    });
    expect(await latestEvent(server, "feature-environment-enabled")).toMatchObject({
      featureName: "new-checkout",
      environment: "production",
    });

    const off = await server.request(`${flags}/new-checkout/environments/production/off`, {
      method: "POST",
    });
    expect(off.status).toBe(200);
    const after = (await flag("new-checkout")).body;
    expect(after.enabled).toBe(false);
    expect(after.environments[1].strategies).toHaveLength(1);
    const unknown = await server.request(`${flags}/new-checkout/environments/staging/on`, { method: "POST" });
    expect(unknown.status).toBe(404);
  });

  it("archives, lists, revives and deletes flags, each a step of its own", async () => {
    await create({ name: "old-banner" });
    const archived = await server.request(`${flags}/old-banner`, { method: "DELETE" });
    expect(archived.status).toBe(202);
    expect(await listed()).not.toContain("old-banner");
    const archive = await server.request("/api/admin/archive/features/default");
    expect(archive.body.features).toEqual([
      expect.objectContaining({ name: "old-banner", archived: true, archivedAt: expect.any(String) }),
    ]);
    expect(await latestEvent(server, "feature-archived")).toMatchObject({ featureName: "old-banner" });
    expect((await flag("old-banner")).body.lifecycle.stage).toBe("archived");
    // An archived name stays taken.
    expect((await create({ name: "old-banner" })).status).toBe(409);

    const revived = await server.request("/api/admin/archive/revive/old-banner", { method: "POST" });
    expect(revived.status).toBe(200);
    expect(await listed()).toContain("old-banner");
    expect((await flag("old-banner")).body.lifecycle.stage).toBe("initial");

    // Only archived flags can be deleted.
    const early = await server.request("/api/admin/archive/old-banner", { method: "DELETE" });
    expect(early.status).toBe(400);
    expect(early.body.name).toBe("ValidationError");
    expect(await listed()).toContain("old-banner");

    await server.request("/api/admin/projects/default/archive", {
      method: "POST",
      body: { features: ["old-banner"] },
    });
    const deleted = await server.request("/api/admin/projects/default/delete", {
      method: "POST",
      body: { features: ["old-banner"] },
    });
    expect(deleted.status).toBe(200);
    expect((await flag("old-banner")).status).toBe(404);
    expect((await server.request("/api/admin/archive/features")).body.features).toEqual([]);
    expect(await latestEvent(server, "feature-deleted")).toMatchObject({
      featureName: "old-banner",
      preData: { name: "old-banner" },
    });
    expect((await create({ name: "old-banner" })).status).toBe(200);
  });

  it("archives nothing when one flag of a batch is unknown", async () => {
    const before = await listed();
    const batch = await server.request("/api/admin/projects/default/archive", {
      method: "POST",
      body: { features: ["new-search", "missing"] },
    });
    expect(batch.status).toBe(404);
    expect(await listed()).toEqual(before);
  });

  it("asks for a token and an admin one", async () => {
    expect((await server.request(flags, { token: null })).status).toBe(401);
    const client = await server.request(flags, { token: "*:development.test-client-secret" });
    expect(client.status).toBe(403);
    expect(client.body.name).toBe("NoAccessError");
  });
});
