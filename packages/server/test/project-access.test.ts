import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { can, requirePermission } from "../src/access/can.js";
import { ROLE_IDS } from "../src/access/roles.js";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent } from "./support/fixtures.js";
import { createUser, login } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

const { Owner, Member, Editor, Viewer } = ROLE_IDS;

describe.each(databaseKinds)("project access (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
    for (const id of ["team", "other"]) {
      const created = await server.request("/api/admin/projects", { method: "POST", body: { id, name: id } });
      expect(created.status).toBe(201);
    }
  });
  afterAll(() => server.close());

  // People written straight to the table: these tests are about access, not about people.
  const addUser = async (username: string, rootRole: number = Viewer) =>
    (
      await server.db
        .insertInto("users")
        .values({
          username,
          name: `${username} person`,
          email: `${username}@example.com`,
          root_role_id: rootRole,
        })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
  const actor = async (userId: number) => (await server.services.grants.actor(userId, "session"))!;
  const access = (project = "team") => server.request(`/api/admin/projects/${project}/access`);
  const give = (body: unknown, project = "team") =>
    server.request(`/api/admin/projects/${project}/access`, { method: "POST", body });

  it("shows who holds which roles in a project, and the roles that can be given there", async () => {
    const empty = await access();
    expect(empty.status).toBe(200);
    expect(empty.body.users).toEqual([]);
    expect(empty.body.groups).toEqual([]);
    expect(empty.body.roles.map((role: { name: string }) => role.name)).toEqual(["Owner", "Member"]);

    const ann = await addUser("ann");
    const group = await server.request("/api/admin/groups", {
      method: "POST",
      body: { name: "Crew", users: [{ user: { id: ann } }] },
    });
    const added = await give({ roles: [Member, Owner], users: [ann], groups: [group.body.id] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(await latestEvent(server, "project-access-added")).toMatchObject({
      project: "team",
      data: { roles: [Member, Owner], users: [ann], groups: [group.body.id] },
    });

    const listed = await access();
    expect(listed.body.users).toEqual([
      {
        id: ann,
        name: "ann person",
        username: "ann",
        email: "ann@example.com",
        imageUrl: null,
        addedAt: expect.any(String),
        roles: [Owner, Member],
      },
    ]);
    expect(listed.body.groups).toEqual([
      {
        id: group.body.id,
        name: "Crew",
        description: null,
        rootRole: null,
        userCount: 1,
        addedAt: expect.any(String),
        roles: [Owner, Member],
      },
    ]);
    expect((await access("nowhere")).status).toBe(404);
  });

  it("changes what a user may do at once as their roles in the project change", async () => {
    const bea = await addUser("bea");
    const may = async (permission: "CREATE_FEATURE" | "UPDATE_PROJECT") =>
      can(await actor(bea), permission, { project: "other" });
    expect(await may("CREATE_FEATURE")).toBe(false);

    expect((await give({ roles: [Member], users: [bea], groups: [] }, "other")).status).toBe(200);
    expect(await may("CREATE_FEATURE")).toBe(true);
    expect(await may("UPDATE_PROJECT")).toBe(false);

    const promoted = await server.request(`/api/admin/projects/other/users/${bea}/roles`, {
      method: "PUT",
      body: { roles: [Owner] },
    });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(await may("UPDATE_PROJECT")).toBe(true);
    expect(await latestEvent(server, "project-access-user-roles-updated")).toMatchObject({
      project: "other",
      data: { roles: [Owner], userId: bea },
      preData: { roles: [Member], userId: bea },
    });

    // A second owner, so that Bea is not the last one.
    const cid = await addUser("cid");
    await give({ roles: [Owner], users: [cid], groups: [] }, "other");
    const removed = await server.request(`/api/admin/projects/other/users/${bea}/roles`, {
      method: "DELETE",
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(await may("CREATE_FEATURE")).toBe(false);
    expect(await latestEvent(server, "project-access-user-roles-deleted")).toMatchObject({
      project: "other",
      preData: { roles: [Owner], userId: bea },
    });
    expect(
      (await server.request(`/api/admin/projects/other/users/${bea}/roles`, { method: "DELETE" })).status,
    ).toBe(404);
  });

  it("lets a custom role change flags in the one environment it names", async () => {
    const developer = await server.request("/api/admin/roles", {
      method: "POST",
      body: {
        name: "Developer",
        type: "custom",
        permissions: [{ name: "UPDATE_FEATURE_ENVIRONMENT", environment: "development" }],
      },
    });
    const dev = await addUser("dev");
    expect((await give({ roles: [developer.body.id], users: [dev], groups: [] })).status).toBe(200);

    const who = await actor(dev);
    expect(can(who, "UPDATE_FEATURE_ENVIRONMENT", { project: "team", environment: "development" })).toBe(
      true,
    );
    expect(can(who, "UPDATE_FEATURE_ENVIRONMENT", { project: "team", environment: "production" })).toBe(
      false,
    );
    expect(can(who, "UPDATE_FEATURE_ENVIRONMENT", { project: "other", environment: "development" })).toBe(
      false,
    );
    expect(() =>
      requirePermission(who, "UPDATE_FEATURE_ENVIRONMENT", { project: "team", environment: "production" }),
    ).toThrow(/"UPDATE_FEATURE_ENVIRONMENT".*environment "production"/);
  });

  it("over a session: the member switches the flag in development, is refused in production, and owns what they create", async () => {
    const role = await server.request("/api/admin/roles", {
      method: "POST",
      body: {
        name: "Switcher",
        permissions: [{ name: "UPDATE_FEATURE_ENVIRONMENT", environment: "development" }],
      },
    });
    const person = await createUser(server, { rootRole: "Editor", username: "switcher" });
    const cookie = await login(server, person.username, person.password);
    expect((await give({ roles: [role.body.id], users: [person.id], groups: [] })).status).toBe(200);
    const flag = await server.request("/api/admin/projects/team/features", {
      method: "POST",
      body: { name: "switchy" },
    });
    expect(flag.status, JSON.stringify(flag.body)).toBe(200);

    const asPerson = (path: string, body?: unknown) =>
      server.request(path, { method: "POST", token: null, headers: { cookie }, body });
    const switchOn = (environment: string) =>
      asPerson(`/api/admin/projects/team/features/switchy/environments/${environment}/on`);
    expect((await switchOn("development")).status).toBe(200);
    const refused = await switchOn("production");
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("UPDATE_FEATURE_ENVIRONMENT");
    expect(refused.body.message).toContain('environment "production"');

    const created = await asPerson("/api/admin/projects", { id: "switchers", name: "Switchers" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await access("switchers")).body.users).toEqual([
      expect.objectContaining({ id: person.id, username: "switcher", roles: [Owner] }),
    ]);
    const own = await server.request("/api/admin/projects/switchers/access", {
      token: null,
      headers: { cookie },
    });
    expect(own.status).toBe(200);
  });

  it("gives and takes single roles of users and groups, with the reference's older events", async () => {
    const eli = await addUser("eli");
    const group = await server.request("/api/admin/groups", { method: "POST", body: { name: "Singles" } });
    const path = (holder: string, id: number, roleId: number) =>
      `/api/admin/projects/team/${holder}/${id}/roles/${roleId}`;

    expect((await server.request(path("users", eli, Member), { method: "POST" })).status).toBe(200);
    expect(await latestEvent(server, "project-user-added")).toMatchObject({
      project: "team",
      data: { userId: eli, roleId: Member },
    });
    expect((await server.request(path("groups", group.body.id, Member), { method: "POST" })).status).toBe(
      200,
    );
    expect((await latestEvent(server, "project-group-added")).data).toEqual({
      groupId: group.body.id,
      roleId: Member,
    });
    expect(can(await actor(eli), "CREATE_FEATURE", { project: "team" })).toBe(true);

    expect((await server.request(path("users", eli, Member), { method: "DELETE" })).status).toBe(200);
    expect((await latestEvent(server, "project-user-removed")).preData).toEqual({
      userId: eli,
      roleId: Member,
    });
    expect((await server.request(path("users", eli, Member), { method: "DELETE" })).status).toBe(404);

    const set = await server.request(`/api/admin/projects/team/groups/${group.body.id}/roles`, {
      method: "PUT",
      body: { roles: [] },
    });
    expect(set.status).toBe(200);
    expect(await latestEvent(server, "project-access-group-roles-updated")).toMatchObject({
      data: { roles: [], groupId: group.body.id },
      preData: { roles: [Member], groupId: group.body.id },
    });
    const access = (await server.request("/api/admin/projects/team/access")).body;
    expect(access.groups.map((held: { id: number }) => held.id)).not.toContain(group.body.id);
  });

  it("refuses root roles, unknown users, groups and roles, storing nothing", async () => {
    const fin = await addUser("fin");
    const before = (await access()).body;
    const refused = await give({ roles: [Editor], users: [fin], groups: [] });
    expectInvalid(refused, "roles");
    expect(refused.body.message).toContain("Editor (2)");
    expectInvalid(await give({ roles: [9999], users: [fin], groups: [] }), "roles");
    const ghosts = await give({ roles: [Member], users: [fin, 888_888], groups: [] });
    expectInvalid(ghosts, "users");
    expect(ghosts.body.message).toContain("888888");
    expectInvalid(await give({ roles: [Member], users: [], groups: [777_777] }), "groups");
    expectInvalid(await give({ roles: [], users: [fin], groups: [] }), "roles");
    expectInvalid(await give({ roles: [Member], users: [], groups: [] }), "users");
    expect((await give({ roles: [Member], users: [fin], groups: [] }, "nowhere")).status).toBe(404);
    const setRoot = await server.request(`/api/admin/projects/team/users/${fin}/roles`, {
      method: "PUT",
      body: { roles: [Viewer] },
    });
    expectInvalid(setRoot, "roles");
    expect(
      (
        await server.request("/api/admin/projects/team/users/888888/roles", {
          method: "PUT",
          body: { roles: [Member] },
        })
      ).status,
    ).toBe(404);
    expect((await access()).body).toEqual(before);
  });

  it("keeps a project's last owner, and lets only admins and owners give roles they do not hold", async () => {
    const solo = await server.request("/api/admin/projects", {
      method: "POST",
      body: { id: "solo", name: "Solo" },
    });
    expect(solo.status).toBe(201);
    const gil = await addUser("gil");
    const hal = await addUser("hal");
    await give({ roles: [Owner], users: [gil], groups: [] }, "solo");

    for (const attempt of [
      server.request(`/api/admin/projects/solo/users/${gil}/roles`, { method: "DELETE" }),
      server.request(`/api/admin/projects/solo/users/${gil}/roles/${Owner}`, { method: "DELETE" }),
      server.request(`/api/admin/projects/solo/users/${gil}/roles`, {
        method: "PUT",
        body: { roles: [Member] },
      }),
    ]) {
      const reply = await attempt;
      expect(reply.status).toBe(409);
      expect(reply.body.name).toBe("ProjectWithoutOwnerError");
    }

    // A member who may manage access (through a custom role) cannot hand out Owner.
    const gatekeeper = await server.request("/api/admin/roles", {
      method: "POST",
      body: {
        name: "Gatekeeper",
        permissions: [{ name: "PROJECT_USER_ACCESS_WRITE" }, { name: "CREATE_FEATURE" }],
      },
    });
    await give({ roles: [gatekeeper.body.id], users: [hal], groups: [] }, "solo");
    const asHal = await actor(hal);
    const ivy = await addUser("ivy");
    await expect(
      server.services.members.addAccess(asHal, "solo", { roles: [Owner], users: [ivy], groups: [] }),
    ).rejects.toMatchObject({ name: "NoAccessError" });
    await server.services.members.addAccess(asHal, "solo", {
      roles: [gatekeeper.body.id],
      users: [ivy],
      groups: [],
    });
    // The owner gives any project role.
    await server.services.members.addAccess(await actor(gil), "solo", {
      roles: [Owner],
      users: [hal],
      groups: [],
    });
    expect(
      (await server.request(`/api/admin/projects/solo/users/${gil}/roles`, { method: "DELETE" })).status,
    ).toBe(200);
  });

  it("sets the whole of a project's access at once, as the reference's Terraform provider does", async () => {
    const created = await server.request("/api/admin/projects", {
      method: "POST",
      body: { id: "whole", name: "Whole" },
    });
    expect(created.status).toBe(201);
    const [kay, lee, max] = [await addUser("kay"), await addUser("lee"), await addUser("max")];
    const crew = await server.request("/api/admin/groups", { method: "POST", body: { name: "Whole crew" } });
    await give({ roles: [Owner], users: [lee], groups: [] }, "whole");
    await give({ roles: [Member], users: [kay], groups: [] }, "whole");
    const leeAdded = (await access("whole")).body.users.find(
      (user: { id: number }) => user.id === lee,
    ).addedAt;
    const set = (body: unknown, project = "whole") =>
      server.request(`/api/admin/projects/${project}/access`, { method: "PUT", body });

    const replaced = await set({
      roles: [
        { id: Member, users: [max, max], groups: [crew.body.id] },
        { id: Owner, users: [lee] },
      ],
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    const after = (await access("whole")).body;
    expect(after.users.map(({ id, roles }: { id: number; roles: number[] }) => ({ id, roles }))).toEqual([
      { id: lee, roles: [Owner] },
      { id: max, roles: [Member] },
    ]);
    // Who keeps a role keeps the date they were first given one.
    expect(after.users[0].addedAt).toBe(leeAdded);
    expect(after.groups).toEqual([expect.objectContaining({ id: crew.body.id, roles: [Member] })]);
    expect(await latestEvent(server, "project-access-updated")).toMatchObject({
      project: "whole",
      preData: {
        roles: [
          { id: Owner, users: [lee], groups: [] },
          { id: Member, users: [kay], groups: [] },
        ],
      },
      data: {
        roles: [
          { id: Owner, users: [lee], groups: [] },
          { id: Member, users: [max], groups: [crew.body.id] },
        ],
      },
    });
    expect(can(await actor(kay), "CREATE_FEATURE", { project: "whole" })).toBe(false);
    expect(can(await actor(max), "CREATE_FEATURE", { project: "whole" })).toBe(true);

    // Refused whole: nothing changes.
    const refusedRoot = await set({
      roles: [
        { id: Editor, users: [kay] },
        { id: Owner, users: [lee] },
      ],
    });
    expectInvalid(refusedRoot, "roles");
    expect(refusedRoot.body.message).toContain("Editor (2)");
    const ghosts = await set({
      roles: [
        { id: Owner, users: [lee] },
        { id: Member, users: [kay, 888_888] },
      ],
    });
    expectInvalid(ghosts, "roles.1.users");
    expect(ghosts.body.message).toContain("888888");
    expectInvalid(await set({ roles: [{ id: Owner, users: [lee], groups: [777_777] }] }), "roles.0.groups");
    const ownerless = await set({ roles: [{ id: Member, users: [lee, max] }] });
    expect(ownerless.status).toBe(409);
    expect(ownerless.body.name).toBe("ProjectWithoutOwnerError");
    expect((await set({ roles: [] }, "nowhere")).status).toBe(404);
    expect((await access("whole")).body).toEqual(after);

    // A project that has no owner may be emptied.
    await server.request("/api/admin/projects", { method: "POST", body: { id: "bare", name: "Bare" } });
    expect((await set({ roles: [{ id: Member, users: [kay] }] }, "bare")).status).toBe(200);
    expect((await set({ roles: [] }, "bare")).status).toBe(200);
    expect((await access("bare")).body).toMatchObject({ users: [], groups: [] });
  });

  it("lets a member who manages access set it all, giving only roles they hold", async () => {
    const doorkeeper = await server.request("/api/admin/roles", {
      method: "POST",
      body: { name: "Doorkeeper", permissions: [{ name: "PROJECT_USER_ACCESS_WRITE" }] },
    });
    const person = await createUser(server, { rootRole: "Viewer", username: "doorkeeper" });
    const cookie = await login(server, person.username, person.password);
    const [nia, oli] = [await addUser("nia"), await addUser("oli")];
    await server.request("/api/admin/projects", { method: "POST", body: { id: "gated", name: "Gated" } });
    await give({ roles: [Owner], users: [nia], groups: [] }, "gated");
    await give({ roles: [Member], users: [oli], groups: [] }, "gated");
    const current = (await access("gated")).body;
    const held = (roles: number[]) =>
      roles.map((id) => ({
        id,
        users: current.users
          .filter((user: { roles: number[] }) => user.roles.includes(id))
          .map((user: { id: number }) => user.id),
        groups: current.groups
          .filter((group: { roles: number[] }) => group.roles.includes(id))
          .map((group: { id: number }) => group.id),
      }));
    const asDoorkeeper = (roles: unknown[]) =>
      server.request("/api/admin/projects/gated/access", {
        method: "PUT",
        token: null,
        headers: { cookie },
        body: { roles },
      });
    expect((await asDoorkeeper(held([Owner, Member]))).body.name).toBe("NoAccessError");

    await give({ roles: [doorkeeper.body.id], users: [person.id], groups: [] }, "gated");
    const kept = [...held([Owner, Member]), { id: doorkeeper.body.id, users: [person.id, oli], groups: [] }];
    const allowed = await asDoorkeeper(kept);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect((await latestEvent(server, "project-access-updated")).createdBy).toBe("doorkeeper");

    const promoted = await asDoorkeeper(
      kept.map((role) => (role.id === Owner ? { ...role, users: [...role.users, oli] } : role)),
    );
    expect(promoted.status).toBe(403);
    expect(promoted.body.name).toBe("NoAccessError");
    expect(promoted.body.message).toContain(`roles ${Owner}`);
  });

  it("makes a person who creates a project its owner, as the projects listing reads it", async () => {
    const joy = await addUser("joy", Editor);
    const kim = await addUser("kim");
    const created = await server.services.projectLifecycle.create(await actor(joy), {
      id: "joys",
      name: "Joy's",
    });
    expect(created.id).toBe("joys");
    const listed = (await access("joys")).body;
    expect(listed.users).toEqual([expect.objectContaining({ id: joy, roles: [Owner] })]);
    expect(can(await actor(joy), "UPDATE_PROJECT", { project: "joys" })).toBe(true);

    const group = await server.request("/api/admin/groups", {
      method: "POST",
      body: { name: "Joy's friends", users: [{ user: { id: kim } }, { user: { id: joy } }] },
    });
    await give({ roles: [Owner], users: [], groups: [group.body.id] }, "joys");

    const owners = await server.services.members.owners(server.db, ["joys", "default"]);
    expect(owners.get("joys")).toEqual([
      { ownerType: "user", name: "joy person", email: "joy@example.com", imageUrl: null },
      { ownerType: "group", name: "Joy's friends" },
    ]);
    expect(owners.get("default")).toEqual([]);
    const counts = await server.services.members.memberCounts(server.db, ["joys", "default"]);
    expect(counts.get("joys")).toBe(2);
    expect(counts.get("default")).toBe(0);
  });
});
