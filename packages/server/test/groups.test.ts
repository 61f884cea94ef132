import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { can } from "../src/access/can.js";
import { ROLE_IDS } from "../src/access/roles.js";
import { expectInvalid, latestEvent } from "./support/fixtures.js";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

// People written straight to the table: these tests are about groups, not about people.
const addUser = async (username: string) =>
  (
    await server.db
      .insertInto("users")
      .values({
        username,
        name: `${username} person`,
        email: `${username}@example.com`,
        root_role_id: ROLE_IDS.Viewer,
      })
      .returning("id")
      .executeTakeFirstOrThrow()
  ).id;
const actor = async (userId: number) => (await server.services.grants.actor(userId, "session"))!;
const post = (body: unknown) => server.request("/api/admin/groups", { method: "POST", body });
/** Who joined or left a group, as the event log records it: each user an event of its own. */
const membershipEvents = async (groupId: number) => {
  const search = async (type: string) =>
    (await server.request("/api/admin/events/search", { method: "POST", body: { type } })).body.events as {
      data?: { groupId: number; userId: number };
      preData?: { groupId: number; userId: number };
    }[];
  const ofGroup = (events: Awaited<ReturnType<typeof search>>, key: "data" | "preData") =>
    events
      .filter((event) => event[key]?.groupId === groupId)
      .map((event) => event[key]?.userId as number)
      .sort((a, b) => a - b);
  return {
    added: ofGroup(await search("group-user-added"), "data"),
    removed: ofGroup(await search("group-user-removed"), "preData"),
  };
};

describe("groups", () => {
  it("creates a group whose root role gives its users that role's permissions at once", async () => {
    const ada = await addUser("ada");
    const bob = await addUser("bob");
    expect(can(await actor(ada), "CREATE_PROJECT")).toBe(false);

    const created = await post({
      name: "Platform",
      description: "Runs the platform",
      rootRole: ROLE_IDS.Editor,
      users: [{ user: { id: ada } }, { user: { id: bob } }, { user: { id: ada } }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.get("location")).toBe(`groups/${created.body.id}`);
    expect(created.body).toMatchObject({
      name: "Platform",
      description: "Runs the platform",
      rootRole: ROLE_IDS.Editor,
      userCount: 2,
      projects: [],
    });
    expect(created.body.users.map((member: { user: { id: number } }) => member.user)).toEqual([
      { id: ada, name: "ada person", username: "ada", email: "ada@example.com", imageUrl: null },
      { id: bob, name: "bob person", username: "bob", email: "bob@example.com", imageUrl: null },
    ]);
    expect((await latestEvent(server, "group-created")).data).toEqual({
      id: created.body.id,
      name: "Platform",
      description: "Runs the platform",
      rootRole: ROLE_IDS.Editor,
      users: [{ id: ada }, { id: bob }],
    });

    expect(await membershipEvents(created.body.id)).toEqual({ added: [ada, bob], removed: [] });

    expect(can(await actor(ada), "CREATE_PROJECT")).toBe(true);
    expect(can(await actor(bob), "UPDATE_FEATURE", { project: "default" })).toBe(true);
    expect(can(await actor(ada), "ADMIN")).toBe(false);

    // Without the root role, the group's users are Viewers again.
    const cleared = await server.request(`/api/admin/groups/${created.body.id}`, {
      method: "PUT",
      body: { name: "Platform", rootRole: null },
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body).toMatchObject({ rootRole: null, description: "Runs the platform", userCount: 2 });
    expect(can(await actor(ada), "CREATE_PROJECT")).toBe(false);
  });

  it("lists and reads groups, with the projects they hold roles in", async () => {
    const carl = await addUser("carl");
    const group = await post({ name: "Reviewers", users: [{ user: { id: carl } }] });
    const given = await server.request("/api/admin/projects/default/access", {
      method: "POST",
      body: { roles: [ROLE_IDS.Member], users: [], groups: [group.body.id] },
    });
    expect(given.status, JSON.stringify(given.body)).toBe(200);

    const one = await server.request(`/api/admin/groups/${group.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      name: "Reviewers",
      description: null,
      rootRole: null,
      projects: ["default"],
    });
    expect(one.body.users).toEqual([
      { joinedAt: expect.any(String), user: expect.objectContaining({ id: carl }) },
    ]);
    const list = await server.request("/api/admin/groups");
    expect(list.body.groups.map((listed: { name: string }) => listed.name)).toEqual([
      "Platform",
      "Reviewers",
    ]);
    expect(can(await actor(carl), "CREATE_FEATURE", { project: "default" })).toBe(true);
    expect((await server.request("/api/admin/groups/9999")).status).toBe(404);
  });

  it("replaces a group's users, keeping when those who stay joined", async () => {
    const [dan, eve, fay] = [await addUser("dan"), await addUser("eve"), await addUser("fay")];
    const group = await post({ name: "Movers", users: [{ user: { id: dan } }, { user: { id: eve } }] });
    const joined = group.body.users.find(
      (member: { user: { id: number } }) => member.user.id === dan,
    ).joinedAt;

    const moved = await server.request(`/api/admin/groups/${group.body.id}`, {
      method: "PUT",
      body: { name: "Movers", users: [{ user: { id: dan } }, { user: { id: fay } }] },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.users.map((member: { user: { id: number } }) => member.user.id).sort()).toEqual(
      [dan, fay].sort(),
    );
    expect(moved.body.users.find((member: { user: { id: number } }) => member.user.id === dan).joinedAt).toBe(
      joined,
    );
    expect(await latestEvent(server, "group-updated")).toMatchObject({
      preData: { users: [{ id: dan }, { id: eve }] },
      data: { users: expect.arrayContaining([{ id: dan }, { id: fay }]) },
    });
    // Dan stays: only those who joined and left have events of their own.
    expect(await membershipEvents(group.body.id)).toEqual({ added: [dan, eve, fay], removed: [eve] });

    // A change that leaves the users as they were records no one joining or leaving.
    const renamed = await server.request(`/api/admin/groups/${group.body.id}`, {
      method: "PUT",
      body: { name: "Movers", description: "Moving on" },
    });
    expect(renamed.status).toBe(200);
    expect(await membershipEvents(group.body.id)).toEqual({ added: [dan, eve, fay], removed: [eve] });
  });

  it("refuses unknown users, roles that are not root roles and taken names, storing nothing", async () => {
    const before = (await server.request("/api/admin/groups")).body;
    const unknown = await post({
      name: "Ghosts",
      users: [{ user: { id: 424242 } }, { user: { id: 434343 } }],
    });
    expectInvalid(unknown, "users");
    expect(unknown.body.message).toContain("424242, 434343");
    expectInvalid(await post({ name: "Owners", rootRole: ROLE_IDS.Owner }), "rootRole");
    expectInvalid(await post({ name: "Nobodies", rootRole: 9999 }), "rootRole");
    expectInvalid(await post({ name: " " }), "name");
    expect((await post({ name: "platform" })).status).toBe(409);
    const movers = before.groups.find((group: { name: string }) => group.name === "Movers");
    const renamed = await server.request(`/api/admin/groups/${movers.id}`, {
      method: "PUT",
      body: { name: "PLATFORM" },
    });
    expect(renamed.status).toBe(409);
    expect((await server.request("/api/admin/groups")).body).toEqual(before);
  });

  it("deletes a group with the project roles it held, and its users lose what it gave them", async () => {
    const gus = await addUser("gus");
    const group = await post({
      name: "Temporary",
      rootRole: ROLE_IDS.Editor,
      users: [{ user: { id: gus } }],
    });
    await server.request("/api/admin/projects/default/access", {
      method: "POST",
      body: { roles: [ROLE_IDS.Owner], users: [], groups: [group.body.id] },
    });
    expect(can(await actor(gus), "UPDATE_PROJECT", { project: "default" })).toBe(true);

    expect((await server.request(`/api/admin/groups/${group.body.id}`, { method: "DELETE" })).status).toBe(
      200,
    );
    expect((await server.request(`/api/admin/groups/${group.body.id}`)).status).toBe(404);
    expect((await latestEvent(server, "group-deleted")).preData).toMatchObject({ name: "Temporary" });
    const access = await server.request("/api/admin/projects/default/access");
    expect(access.body.groups.map((held: { id: number }) => held.id)).not.toContain(group.body.id);
    const gusActor = await actor(gus);
    expect(can(gusActor, "UPDATE_PROJECT", { project: "default" })).toBe(false);
    expect(can(gusActor, "CREATE_PROJECT")).toBe(false);
    expect((await server.request(`/api/admin/groups/${group.body.id}`, { method: "DELETE" })).status).toBe(
      404,
    );
  });
});
