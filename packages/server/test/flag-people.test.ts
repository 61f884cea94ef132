import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { up as recordCreators } from "../src/db/migrations/0013_feature_creators.js";
import { databaseKinds } from "./support/database.js";
import { createUser, login } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

// The people a flag shows: who created it (`createdBy`, and the feature search's `createdBy`
// filter) and who changed it (`collaborators`), read from the users and the flag's events.

describe.each(databaseKinds)("who created and who changed a flag (%s)", (kind) => {
  let server: TestServer;
  let ann: { id: number; cookie: string };
  let bob: { id: number; cookie: string };

  const person = async (user: { username: string; name?: string; email?: string }) => {
    const created = await createUser(server, { rootRole: "Editor", ...user });
    return { id: created.id, cookie: await login(server, created.username, created.password) };
  };

  beforeAll(async () => {
    server = await startTestServer(kind);
    ann = await person({ username: "ann", name: "Ann Example", email: "ann@example.com" });
    bob = await person({ username: "bob", email: "bob@example.com" });
    await server.db
      .updateTable("users")
      .set({ image_url: "https://images.example.com/ann.png" })
      .where("id", "=", ann.id)
      .execute();
  });
  afterAll(() => server.close());

  const as = (who: { cookie: string }, path: string, method = "GET", body?: unknown) =>
    server.request(path, { method, body, token: null, headers: { cookie: who.cookie } });
  const flag = (name: string) => server.request(`/api/admin/projects/default/features/${name}`);

  it("shows the person who created a flag, with their image, and finds their flags by id", async () => {
    const created = await as(ann, "/api/admin/projects/default/features", "POST", { name: "anns-flag" });
    expect(created.status).toBe(200);
    const creator = { id: ann.id, name: "Ann Example", imageUrl: "https://images.example.com/ann.png" };
    expect(created.body.createdBy).toEqual(creator);
    expect((await flag("anns-flag")).body.createdBy).toEqual(creator);
    await as(bob, "/api/admin/projects/default/features", "POST", { name: "bobs-flag" });
    // Without a name, a person is shown by their username; without a stored image, by "".
    expect((await flag("bobs-flag")).body.createdBy).toEqual({ id: bob.id, name: "bob", imageUrl: "" });

    const search = (filter: string) =>
      server.request(`/api/admin/search/features?createdBy=${encodeURIComponent(filter)}`);
    const found = await search(`IS:${ann.id}`);
    expect(found.body.features.map((entry: { name: string }) => entry.name)).toEqual(["anns-flag"]);
    expect(found.body.features[0].createdBy).toEqual(creator);
    const either = await search(`IS_ANY_OF:${ann.id},${bob.id}`);
    expect(either.body.features.map((entry: { name: string }) => entry.name).sort()).toEqual([
      "anns-flag",
      "bobs-flag",
    ]);
  });

  it("shows a flag made with an admin token as the token's", async () => {
    await server.request("/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "by-token" },
    });
    const { createdBy } = (await flag("by-token")).body;
    expect(createdBy).toEqual({ id: -42, name: expect.any(String), imageUrl: "" });
    expect(createdBy.name).not.toBe("unknown");
  });

  it("lists the people who changed a flag, the latest first, each once", async () => {
    const path = "/api/admin/projects/default/features/shared-flag";
    expect(
      (await as(ann, "/api/admin/projects/default/features", "POST", { name: "shared-flag" })).status,
    ).toBe(200);
    expect((await flag("shared-flag")).body.collaborators).toEqual({
      users: [{ id: ann.id, name: "Ann Example", imageUrl: "https://images.example.com/ann.png" }],
    });
    expect((await as(bob, path, "PUT", { description: "bob was here" })).status).toBe(200);
    const both = (await flag("shared-flag")).body.collaborators.users;
    expect(both.map((user: { id: number }) => user.id)).toEqual([bob.id, ann.id]);
    expect(both[0]).toEqual({ id: bob.id, name: "bob", imageUrl: "" });

    expect((await as(ann, `${path}/environments/development/on`, "POST")).status).toBe(200);
    const again = (await flag("shared-flag")).body.collaborators.users;
    expect(again.map((user: { id: number }) => user.id)).toEqual([ann.id, bob.id]);
    // Changes made with tokens name no person.
    await server.request(`${path}/environments/development/off`, { method: "POST" });
    expect((await flag("shared-flag")).body.collaborators.users).toEqual(again);
  });

  it("gives flags created before creators were recorded the author of their feature-created event", async () => {
    expect(
      (await as(bob, "/api/admin/projects/default/features", "POST", { name: "older-flag" })).status,
    ).toBe(200);
    await server.db
      .updateTable("features")
      .set({ created_by_user_id: null })
      .where("name", "=", "older-flag")
      .execute();
    expect((await flag("older-flag")).body.createdBy.id).toBe(0);
    await recordCreators(server.db as unknown as Kysely<unknown>);
    expect((await flag("older-flag")).body.createdBy).toEqual({ id: bob.id, name: "bob", imageUrl: "" });
    expect((await flag("anns-flag")).body.createdBy.id).toBe(ann.id);
  });
});
