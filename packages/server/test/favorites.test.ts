import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "./support/database.js";
import { seedFlag } from "./support/fixtures.js";
import { createUser, login, type RootRole } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** A user's session, and a personal access token they made with it. */
async function person(server: TestServer, username: string, rootRole: RootRole) {
  const user = await createUser(server, { rootRole, username });
  const cookie = await login(server, user.username, user.password);
  const created = await server.request("/api/admin/user/tokens", {
    method: "POST",
    token: null,
    headers: { cookie },
    body: { description: "favourites", expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
  });
  return { id: user.id, cookie, token: created.body.secret as string };
}

describe.each(databaseKinds)("favourites (%s)", (kind) => {
  let server: TestServer;
  let fay: Awaited<ReturnType<typeof person>>;
  let other: Awaited<ReturnType<typeof person>>;
  beforeAll(async () => {
    server = await startTestServer(kind);
    fay = await person(server, "fay", "Editor");
    other = await person(server, "otto", "Viewer");
    await seedFlag(server, { name: "liked" });
    await seedFlag(server, { name: "plain" });
  });
  afterAll(() => server.close());

  const favoriteIn = async (token: string | undefined) => {
    const listing = await server.request("/api/admin/projects/default/features", { token });
    return Object.fromEntries(
      listing.body.features.map((flag: { name: string; favorite: boolean }) => [flag.name, flag.favorite]),
    );
  };
  const events = async (type: string) =>
    (await server.request("/api/admin/events/search", { method: "POST", body: { type } })).body.events;

  it("marks a flag for the person who favourites it only, once, until unmarked", async () => {
    const path = "/api/admin/projects/default/features/liked/favorites";
    for (let n = 0; n < 2; n++) {
      const marked = await server.request(path, { method: "POST", token: fay.token });
      expect(marked.status).toBe(200);
    }
    expect(await favoriteIn(fay.token)).toEqual({ liked: true, plain: false });
    expect(await favoriteIn(other.token)).toEqual({ liked: false, plain: false });
    expect(await favoriteIn(undefined)).toEqual({ liked: false, plain: false });
    const one = await server.request("/api/admin/projects/default/features/liked", { token: fay.token });
    expect(one.body.favorite).toBe(true);
    expect((await server.request("/api/admin/features/liked", { token: other.token })).body.favorite).toBe(
      false,
    );

    const favorited = await events("feature-favorited");
    expect(favorited).toHaveLength(1);
    expect(favorited[0]).toMatchObject({
      project: "default",
      featureName: "liked",
      createdBy: "fay",
      createdByUserId: fay.id,
      data: { feature: "liked" },
    });

    // A change of the flag answers as its author sees it; the event, as no one in particular.
    const updated = await server.request("/api/admin/projects/default/features/liked", {
      method: "PUT",
      body: { description: "changed" },
      token: fay.token,
    });
    expect(updated.body.favorite).toBe(true);
    const [event] = await events("feature-metadata-updated");
    expect(event.data.favorite).toBe(false);

    for (let n = 0; n < 2; n++)
      expect((await server.request(path, { method: "DELETE", token: fay.token })).status).toBe(200);
    expect(await favoriteIn(fay.token)).toEqual({ liked: false, plain: false });
    const unfavorited = await events("feature-unfavorited");
    expect(unfavorited).toHaveLength(1);
    expect(unfavorited[0]).toMatchObject({
      project: "default",
      featureName: "liked",
      createdByUserId: fay.id,
    });
  });

  it("marks a project for the person who favourites it", async () => {
    const path = "/api/admin/projects/default/favorites";
    // A session marks as a token does.
    const marked = await server.request(path, {
      method: "POST",
      token: null,
      headers: { cookie: fay.cookie },
    });
    expect(marked.status).toBe(200);
    const actor = (await server.services.grants.actor(fay.id, "pat"))!;
    expect(await server.services.favorites.projects(actor)).toEqual(new Set(["default"]));
    const otto = (await server.services.grants.actor(other.id, "pat"))!;
    expect(await server.services.favorites.projects(otto)).toEqual(new Set());
    expect((await events("project-favorited"))[0]).toMatchObject({
      project: "default",
      createdByUserId: fay.id,
      data: { project: "default" },
    });
    expect((await server.request(path, { method: "DELETE", token: fay.token })).status).toBe(200);
    expect(await server.services.favorites.projects(actor)).toEqual(new Set());
    expect((await events("project-unfavorited"))[0]).toMatchObject({ project: "default" });
  });

  it("answers 404 for a flag or project that does not exist, and 403 to API tokens", async () => {
    for (const path of [
      "/api/admin/projects/default/features/missing/favorites",
      "/api/admin/projects/nowhere/features/liked/favorites",
      "/api/admin/projects/nowhere/favorites",
    ]) {
      const reply = await server.request(path, { method: "POST", token: fay.token });
      expect(reply.status, path).toBe(404);
      expect(reply.body.name).toBe("NotFoundError");
    }
    for (const path of [
      "/api/admin/projects/default/features/liked/favorites",
      "/api/admin/projects/default/favorites",
    ]) {
      const reply = await server.request(path, { method: "POST" });
      expect(reply.status).toBe(403);
      expect(reply.body.name).toBe("NoAccessError");
      expect(reply.body.message).toContain("belongs to a person");
    }
    expect(await events("feature-favorited")).toHaveLength(1);
  });
});
