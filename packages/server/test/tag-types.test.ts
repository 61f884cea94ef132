import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent } from "./support/fixtures.js";
import { createUser, login } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

describe.each(databaseKinds)("tag types (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const simple = { name: "simple", description: "Used to simplify filtering of features", icon: "#" };

  it("holds the simple tag type on a fresh install", async () => {
    expect((await server.request("/api/admin/tag-types")).body).toEqual({ version: 1, tagTypes: [simple] });
    expect((await server.request("/api/admin/tag-types/simple")).body).toEqual({
      version: 1,
      tagType: simple,
    });
    expect((await server.request("/api/admin/tag-types/nowhere")).status).toBe(404);
  });

  it("creates, updates and deletes a tag type, recording each change", async () => {
    const created = await server.request("/api/admin/tag-types", {
      method: "POST",
      body: { name: "team", description: "Owning team" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ name: "team", description: "Owning team", icon: null });
    expect((await latestEvent(server, "tag-type-created")).data).toEqual(created.body);

    const updated = await server.request("/api/admin/tag-types/team", {
      method: "PUT",
      body: { icon: "people" },
    });
    expect(updated.status).toBe(200);
    expect((await server.request("/api/admin/tag-types/team")).body.tagType).toEqual({
      name: "team",
      description: "Owning team",
      icon: "people",
    });
    expect(await latestEvent(server, "tag-type-updated")).toMatchObject({
      preData: { icon: null },
      data: { icon: "people" },
    });

    expect((await server.request("/api/admin/tag-types/team", { method: "DELETE" })).status).toBe(200);
    expect((await server.request("/api/admin/tag-types/team")).status).toBe(404);
    expect((await latestEvent(server, "tag-type-deleted")).preData.name).toBe("team");
  });

  it("validates names and refuses taken or malformed ones, storing nothing", async () => {
    const validate = (body: unknown) =>
      server.request("/api/admin/tag-types/validate", { method: "POST", body });
    const free = await validate({ name: "squad" });
    expect(free.status).toBe(200);
    expect(free.body).toEqual({ valid: true, tagType: { name: "squad", description: null, icon: null } });
    expect((await validate({ name: "simple" })).status).toBe(409);

    const post = (body: unknown) => server.request("/api/admin/tag-types", { method: "POST", body });
    expectInvalid(await post({ name: "x" }), "name");
    expectInvalid(await post({ name: "no spaces" }), "name");
    expect((await post({ name: "simple" })).status).toBe(409);
    expect((await server.request("/api/admin/tag-types/nowhere", { method: "PUT", body: {} })).status).toBe(
      404,
    );
    expect((await server.request("/api/admin/tag-types/nowhere", { method: "DELETE" })).status).toBe(404);
    expect((await server.request("/api/admin/tag-types")).body.tagTypes).toEqual([simple]);
  });

  it("records a tag's creation when the first flag is given it, in that flag's project", async () => {
    for (const name of ["web-checkout", "app-checkout"]) {
      await server.request("/api/admin/projects/default/features", { method: "POST", body: { name } });
    }
    const tag = (flag: string, value: string) =>
      server.request(`/api/admin/features/${flag}/tags`, { method: "POST", body: { type: "simple", value } });
    expect((await tag("web-checkout", "checkout")).status).toBe(201);
    expect((await tag("app-checkout", "checkout")).status).toBe(201);
    expect((await tag("app-checkout", "mobile")).status).toBe(201);
    const created = await server.request("/api/admin/events/search", {
      method: "POST",
      body: { type: "tag-created" },
    });
    expect(
      created.body.events.map((event: { project: string; featureName: string; data: unknown }) => ({
        project: event.project,
        featureName: event.featureName,
        data: event.data,
      })),
    ).toEqual([
      { project: "default", featureName: null, data: { type: "simple", value: "mobile" } },
      { project: "default", featureName: null, data: { type: "simple", value: "checkout" } },
    ]);

    // A private project's tag is no one else's to read about.
    await server.request("/api/admin/projects", {
      method: "POST",
      body: { id: "vault", name: "Vault", mode: "private" },
    });
    await server.request("/api/admin/projects/vault/features", { method: "POST", body: { name: "merger" } });
    expect((await tag("merger", "acquisition")).status).toBe(201);
    const outsider = await createUser(server, { rootRole: "Editor" });
    const seen = await server.request("/api/admin/events/search", {
      method: "POST",
      token: null,
      headers: { cookie: await login(server, outsider.username, outsider.password) },
      body: { type: "tag-created" },
    });
    expect(seen.body.events.map((event: { data: { value: string } }) => event.data.value)).toEqual([
      "mobile",
      "checkout",
    ]);
  });
});
