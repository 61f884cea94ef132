import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { system } from "../src/access/actor.js";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent } from "./support/fixtures.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

const project = "/api/admin/projects/default/features";

describe.each(databaseKinds)("tags, dependencies and lifecycle of flags (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    for (const name of ["parent", "child", "grandchild", "other"]) {
      await server.request(project, { method: "POST", body: { name } });
    }
    await server.request("/api/admin/projects", {
      method: "POST",
      body: { id: "elsewhere", name: "Elsewhere" },
    });
    await server.request("/api/admin/projects/elsewhere/features", {
      method: "POST",
      body: { name: "foreign" },
    });
    await server.request("/api/admin/tag-types", { method: "POST", body: { name: "team" } });
  });
  afterAll(() => server.close());

  const tagsOf = async (name: string) => (await server.request(`/api/admin/features/${name}/tags`)).body.tags;

  it("tags a flag, refusing unknown types and repeats", async () => {
    const added = await server.request("/api/admin/features/parent/tags", {
      method: "POST",
      body: { type: "team", value: "payments" },
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ type: "team", value: "payments" });
    expect(await latestEvent(server, "feature-tagged")).toMatchObject({
      featureName: "parent",
      data: { type: "team", value: "payments" },
    });
    const repeat = await server.request("/api/admin/features/parent/tags", {
      method: "POST",
      body: { type: "team", value: "payments" },
    });
    expect(repeat.status).toBe(409);
    expectInvalid(
      await server.request("/api/admin/features/parent/tags", {
        method: "POST",
        body: { type: "nonexistent", value: "payments" },
      }),
      "type",
    );
    expectInvalid(
      await server.request("/api/admin/features/parent/tags", { method: "POST", body: { value: "x" } }),
      "value",
    );
    expect((await server.request("/api/admin/features/missing/tags")).status).toBe(404);
    expect(await tagsOf("parent")).toEqual([{ type: "team", value: "payments" }]);
  });

  it("changes tags of one flag and of several, all or nothing", async () => {
    const changed = await server.request("/api/admin/features/parent/tags", {
      method: "PUT",
      body: {
        addedTags: [{ type: "simple", value: "web" }],
        removedTags: [{ type: "team", value: "payments" }],
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ version: 1, tags: [{ type: "simple", value: "web" }] });

    const bulk = (features: string[]) =>
      server.request("/api/admin/tags/features", {
        method: "PUT",
        body: { features, tags: { addedTags: [{ type: "team", value: "growth" }] } },
      });
    expect((await bulk(["child", "missing"])).status).toBe(404);
    expect(await tagsOf("child")).toEqual([]);
    expect((await bulk(["child", "other"])).status).toBe(200);
    expect(await tagsOf("other")).toEqual([{ type: "team", value: "growth" }]);

    const removed = await server.request("/api/admin/features/other/tags/team/growth", { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect(await tagsOf("other")).toEqual([]);
    expect(await latestEvent(server, "feature-untagged")).toMatchObject({
      featureName: "other",
      preData: { type: "team", value: "growth" },
    });
  });

  it("adds a dependency that SDKs evaluate, and refuses cycles, depth and foreign parents", async () => {
    const depend = (child: string, body: unknown) =>
      server.request(`${project}/${child}/dependencies`, { method: "POST", body });
    expect((await depend("child", { feature: "parent", variants: ["blue"] })).status).toBe(200);
    expect((await server.request(`${project}/child`)).body.dependencies).toEqual([
      { feature: "parent", enabled: true, variants: ["blue"] },
    ]);
    expect((await server.request(`${project}/parent`)).body.children).toEqual(["child"]);
    expect((await server.request("/api/admin/projects/default/dependencies")).body).toBe(true);
    expect(await latestEvent(server, "feature-dependency-added")).toMatchObject({
      featureName: "child",
      data: { feature: "parent", enabled: true, variants: ["blue"] },
    });
    const sdk = await server.request("/api/client/features/child", { token: CLIENT_TOKEN });
    expect(sdk.body.dependencies).toEqual([{ feature: "parent", enabled: true, variants: ["blue"] }]);

    const refused = { name: "NoAccessError", id: expect.any(String) };
    for (const [from, to] of [
      ["grandchild", "child"],
      ["parent", "other"],
      ["other", "other"],
    ]) {
      expect(await depend(from!, { feature: to })).toMatchObject({ status: 403, body: refused });
    }
    // A parent that is not an active flag of the project is not found, wherever it is.
    for (const to of ["missing", "foreign"]) {
      expect(await depend("other", { feature: to })).toMatchObject({
        status: 404,
        body: { name: "NotFoundError", message: `Project default has no flag ${to}` },
      });
    }
    expectInvalid(
      await depend("other", { feature: "parent", enabled: false, variants: ["blue"] }),
      "variants",
    );
    expect((await server.request(`${project}/grandchild`)).body.dependencies).toEqual([]);
    expect((await server.request(`${project}/other`)).body.dependencies).toEqual([]);
  });

  it("will not archive a parent its children still need, and removes dependencies", async () => {
    const blocked = await server.request(`${project}/parent`, { method: "DELETE" });
    expect(blocked.status).toBe(400);
    expect((await server.request(`${project}/parent`)).body.archived).toBe(false);

    const missing = await server.request(`${project}/child/dependencies/other`, { method: "DELETE" });
    expect(missing.status).toBe(404);
    const removed = await server.request(`${project}/child/dependencies/parent`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect((await server.request(`${project}/child`)).body.dependencies).toEqual([]);
    expect((await server.request("/api/admin/projects/default/dependencies")).body).toBe(false);

    await server.request(`${project}/child/dependencies`, {
      method: "POST",
      body: { feature: "parent", enabled: false },
    });
    await server.request(`${project}/child/dependencies`, { method: "DELETE" });
    expect((await server.request(`${project}/child`)).body.dependencies).toEqual([]);
    expect(await latestEvent(server, "feature-dependencies-removed")).toMatchObject({ featureName: "child" });
  });

  it("moves a flag through its lifecycle: initial, pre-live and live on use, completed, archived", async () => {
    const lifecycle = async () => (await server.request(`${project}/other/lifecycle`)).body;
    expect(await lifecycle()).toEqual([{ stage: "initial", enteredStageAt: expect.any(String) }]);

    const metrics = (environment: string) =>
      server.request("/api/client/metrics", {
        method: "POST",
        token: environment === "production" ? "*:production.lifecycle-prod" : CLIENT_TOKEN,
        body: {
          appName: "shop",
          instanceId: "i-1",
          environment,
          bucket: {
            start: new Date().toISOString(),
            stop: new Date().toISOString(),
            toggles: { other: { yes: 1, no: 0, variants: {} } },
          },
        },
      });
    await server.services.tokens.ensure(system("test"), "client", ["*:production.lifecycle-prod"]);
    expect((await metrics("development")).status).toBe(202);
    const stages = async () => (await lifecycle()).map((s: { stage: string }) => s.stage);
    expect(await stages()).toEqual(["initial", "pre-live"]);
    // Live is use in production while switched on there.
    await metrics("production");
    expect(await stages()).toEqual(["initial", "pre-live"]);
    await server.request(`${project}/other/environments/production/on`, { method: "POST" });
    await metrics("production");
    expect(await stages()).toEqual(["initial", "pre-live", "live"]);

    const complete = await server.request(`${project}/other/lifecycle/complete`, {
      method: "POST",
      body: { status: "kept", statusValue: "blue" },
    });
    expect(complete.status).toBe(200);
    expect((await lifecycle()).at(-1)).toEqual({
      stage: "completed",
      status: "kept",
      enteredStageAt: expect.any(String),
    });
    expect((await server.request(`${project}/other`)).body.lifecycle.stage).toBe("completed");
    expectInvalid(
      await server.request(`${project}/other/lifecycle/complete`, {
        method: "POST",
        body: { status: "maybe" },
      }),
      "status",
    );

    await server.request(`${project}/other/lifecycle/uncomplete`, { method: "POST" });
    expect((await server.request(`${project}/other`)).body.lifecycle.stage).toBe("live");
    await server.request(`${project}/other`, { method: "DELETE" });
    expect((await lifecycle()).at(-1).stage).toBe("archived");
  });

  it("answers 404 for the lifecycle of an unknown flag or project (endpoint 15)", async () => {
    for (const path of [
      `${project}/never-created/lifecycle`,
      "/api/admin/projects/nowhere/features/parent/lifecycle",
    ]) {
      const missing = await server.request(path);
      expect(missing.status).toBe(404);
      expect(missing.body.name).toBe("NotFoundError");
    }
  });
});
