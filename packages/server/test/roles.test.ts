import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { can } from "../src/access/can.js";
import { ROLE_IDS } from "../src/access/roles.js";
import { databaseKinds } from "./support/database.js";
import { expectInvalid, latestEvent } from "./support/fixtures.js";
import { startTestServer, type TestServer } from "./support/server.js";

describe.each(databaseKinds)("roles (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  // A person written straight to the table: these tests are about roles, not about people.
  const addUser = async (username: string, rootRole: number = ROLE_IDS.Viewer) =>
    (
      await server.db
        .insertInto("users")
        .values({ username, email: `${username}@example.com`, root_role_id: rootRole })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
  const post = (body: unknown) => server.request("/api/admin/roles", { method: "POST", body });

  it("lists the predefined roles with their reference ids and permissions", async () => {
    const list = await server.request("/api/admin/roles");
    expect(list.status).toBe(200);
    expect(list.body.version).toBe(1);
    expect(
      list.body.roles.map((role: { id: number; name: string; type: string }) => [
        role.id,
        role.name,
        role.type,
      ]),
    ).toEqual([
      [1, "Admin", "root"],
      [2, "Editor", "root"],
      [3, "Viewer", "root"],
      [4, "Owner", "project"],
      [5, "Member", "project"],
    ]);

    const admin = await server.request("/api/admin/roles/1");
    expect(admin.body.permissions).toEqual([expect.objectContaining({ name: "ADMIN", type: "root" })]);
    const member = await server.request("/api/admin/roles/5");
    const names = member.body.permissions.map((permission: { name: string }) => permission.name);
    expect(names).toContain("CREATE_FEATURE");
    expect(names).not.toContain("UPDATE_PROJECT");
    // Predefined environment permissions hold in every environment, so they name none.
    expect(member.body.permissions).toContainEqual({
      id: expect.any(Number),
      name: "UPDATE_FEATURE_ENVIRONMENT",
      displayName: expect.any(String),
      type: "environment",
    });
    expect((await server.request("/api/admin/roles/999")).status).toBe(404);
  });

  it("lists the permissions custom roles can hold, environment ones per environment", async () => {
    const reply = await server.request("/api/admin/permissions");
    expect(reply.status).toBe(200);
    const { root, project, environments } = reply.body.permissions;
    expect(reply.body.version).toBe(1);
    expect(root.map((permission: { name: string }) => permission.name)).toContain("CREATE_PROJECT");
    expect(root.map((permission: { name: string }) => permission.name)).not.toContain("ADMIN");
    expect(project).toContainEqual(
      expect.objectContaining({
        name: "PROJECT_USER_ACCESS_WRITE",
        type: "project",
        displayName: expect.any(String),
      }),
    );
    expect(environments.map((environment: { name: string }) => environment.name)).toEqual([
      "development",
      "production",
    ]);
    expect(environments[1].permissions).toContainEqual(
      expect.objectContaining({
        name: "UPDATE_FEATURE_ENVIRONMENT",
        type: "environment",
        environment: "production",
      }),
    );
  });

  it("creates, changes and deletes a custom project role, recording each change", async () => {
    const created = await post({
      name: "Developer",
      description: "Turns flags on in development",
      type: "custom",
      permissions: [
        { name: "CREATE_FEATURE" },
        { name: "UPDATE_FEATURE_ENVIRONMENT", environment: "development" },
        { name: "UPDATE_FEATURE_ENVIRONMENT", environment: "development" },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.get("location")).toBe(`roles/${created.body.id}`);
    expect(created.body).toMatchObject({
      name: "Developer",
      type: "custom",
      description: "Turns flags on in development",
    });
    expect(created.body.permissions).toEqual([
      expect.objectContaining({ name: "CREATE_FEATURE", type: "project" }),
      expect.objectContaining({
        name: "UPDATE_FEATURE_ENVIRONMENT",
        type: "environment",
        environment: "development",
      }),
    ]);
    expect((await latestEvent(server, "role-created")).data).toEqual({
      id: created.body.id,
      name: "Developer",
      description: "Turns flags on in development",
      type: "custom",
      permissions: [
        { name: "CREATE_FEATURE" },
        { name: "UPDATE_FEATURE_ENVIRONMENT", environment: "development" },
      ],
    });

    const id = created.body.id;
    const renamed = await server.request(`/api/admin/roles/${id}`, {
      method: "PUT",
      body: { name: "Dev", permissions: [{ name: "UPDATE_FEATURE_ENVIRONMENT" }] },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({
      name: "Dev",
      type: "custom",
      description: "Turns flags on in development",
    });
    expect(renamed.body.permissions).toEqual([
      expect.objectContaining({ name: "UPDATE_FEATURE_ENVIRONMENT", type: "environment" }),
    ]);
    expect(renamed.body.permissions[0].environment).toBeUndefined();
    expect(await latestEvent(server, "role-updated")).toMatchObject({
      preData: { name: "Developer" },
      data: { name: "Dev", permissions: [{ name: "UPDATE_FEATURE_ENVIRONMENT" }] },
    });
    // What is left out is kept.
    await server.request(`/api/admin/roles/${id}`, {
      method: "PUT",
      body: { name: "Dev", description: "kept" },
    });
    expect((await server.request(`/api/admin/roles/${id}`)).body.permissions).toHaveLength(1);
    expect((await server.request("/api/admin/roles")).body.roles).toContainEqual({
      id,
      name: "Dev",
      type: "custom",
      description: "kept",
    });

    expect((await server.request(`/api/admin/roles/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await server.request(`/api/admin/roles/${id}`)).status).toBe(404);
    expect((await latestEvent(server, "role-deleted")).preData).toMatchObject({ id, name: "Dev" });
  });

  it("refuses permissions that do not fit the role, and names that are taken, storing nothing", async () => {
    const before = (await server.request("/api/admin/roles")).body.roles;
    expectInvalid(
      await post({ name: "r1", type: "root-custom", permissions: [{ name: "CREATE_FEATURE" }] }),
      "permissions.0",
    );
    expectInvalid(
      await post({ name: "r2", type: "custom", permissions: [{ name: "CREATE_PROJECT" }] }),
      "permissions.0",
    );
    expectInvalid(await post({ name: "r3", permissions: [{ name: "ADMIN" }] }), "permissions.0.name");
    expectInvalid(
      await post({ name: "r3", type: "root-custom", permissions: [{ name: "ADMIN" }] }),
      "permissions.0.name",
    );
    expectInvalid(await post({ name: "r4", permissions: [{ name: "FLY" }] }), "permissions.0.name");
    expectInvalid(
      await post({ name: "r5", permissions: [{ name: "UPDATE_PROJECT", environment: "development" }] }),
      "permissions.0.environment",
    );
    const unknownEnvironment = await post({
      name: "r6",
      permissions: [
        { name: "CREATE_FEATURE" },
        { name: "UPDATE_FEATURE_ENVIRONMENT", environment: "staging" },
      ],
    });
    expectInvalid(unknownEnvironment, "permissions.1.environment");
    expect(unknownEnvironment.body.message).toContain("staging");
    expectInvalid(await post({ name: "   " }), "name");
    expect((await post({ name: "editor" })).status).toBe(409);

    const validate = (body: unknown) => server.request("/api/admin/roles/validate", { method: "POST", body });
    expect((await validate({ name: "Fresh" })).status).toBe(200);
    expect((await validate({ name: "VIEWER" })).status).toBe(409);
    expectInvalid(
      await validate({ name: "Fresh", type: "root-custom", permissions: [{ name: "DELETE_FEATURE" }] }),
      "permissions.0",
    );

    for (const id of [1, 4]) {
      const changed = await server.request(`/api/admin/roles/${id}`, {
        method: "PUT",
        body: { name: "Mine" },
      });
      expect(changed.status).toBe(403);
      expect(changed.body.name).toBe("NoAccessError");
      expect((await server.request(`/api/admin/roles/${id}`, { method: "DELETE" })).body.name).toBe(
        "NoAccessError",
      );
    }
    expect((await server.request("/api/admin/roles")).body.roles).toEqual(before);
  });

  it("gives a custom root role's permissions to its users, and refuses to delete it while held", async () => {
    const role = await post({
      name: "Project maker",
      type: "root-custom",
      permissions: [{ name: "CREATE_PROJECT" }, { name: "READ_ROLE" }],
    });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    const maker = await server.services.grants.actor(await addUser("maker", role.body.id), "session");
    expect(can(maker!, "CREATE_PROJECT")).toBe(true);
    expect(can(maker!, "READ_ROLE")).toBe(true);
    expect(can(maker!, "CREATE_TAG_TYPE")).toBe(false);

    const refused = await server.request(`/api/admin/roles/${role.body.id}`, { method: "DELETE" });
    expect(refused.status).toBe(400);
    expect(refused.body.name).toBe("RoleInUseError");
    expect(refused.body.message).toContain("1 users");
    // A role in use keeps its kind: it cannot become a project role under its holders.
    expectInvalid(
      await server.request(`/api/admin/roles/${role.body.id}`, {
        method: "PUT",
        body: { name: "Project maker", type: "custom" },
      }),
      "type",
    );
    expect((await server.request(`/api/admin/roles/${role.body.id}`)).status).toBe(200);
  });

  it("refuses to delete a project role given in a project or a root role given to a group", async () => {
    const projectRole = await post({ name: "Tester", permissions: [{ name: "UPDATE_FEATURE" }] });
    const userId = await addUser("tester");
    const given = await server.request("/api/admin/projects/default/access", {
      method: "POST",
      body: { roles: [projectRole.body.id], users: [userId], groups: [] },
    });
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    const inProject = await server.request(`/api/admin/roles/${projectRole.body.id}`, { method: "DELETE" });
    expect(inProject.status).toBe(400);
    expect(inProject.body).toMatchObject({
      name: "RoleInUseError",
      message: expect.stringContaining("1 project memberships"),
    });

    const rootRole = await post({
      name: "Segmenter",
      type: "root-custom",
      permissions: [{ name: "CREATE_SEGMENT" }],
    });
    await server.request("/api/admin/groups", {
      method: "POST",
      body: { name: "Segmenters", rootRole: rootRole.body.id },
    });
    const inGroup = await server.request(`/api/admin/roles/${rootRole.body.id}`, { method: "DELETE" });
    expect(inGroup.body).toMatchObject({
      name: "RoleInUseError",
      message: expect.stringContaining("1 groups"),
    });

    await server.request(`/api/admin/projects/default/users/${userId}/roles`, { method: "DELETE" });
    expect(
      (await server.request(`/api/admin/roles/${projectRole.body.id}`, { method: "DELETE" })).status,
    ).toBe(200);
  });
});
