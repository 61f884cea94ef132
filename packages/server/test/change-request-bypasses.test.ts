import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fingerprint } from "./support/fingerprint.js";
import { createUser, login } from "./support/people.js";
import { type Reply, startTestServer, type TestServer } from "./support/server.js";

// Four-eyes review that cannot be gone around: each way found to change what an environment
// that requires change requests serves, without its reviewers seeing it, is refused here.
// Project `team` requires review in production; its two Owners have the Viewer root role.

const TEAM = "/api/admin/projects/team";
const TEAM_PROD = `${TEAM}/environments/production`;

interface Person {
  id: number;
  cookie: string;
}

let server: TestServer;
let owner: Person;
let reviewer: Person;
let prodToken: string;
let globalSegment: number;
let privateSegment: number;

// biome-ignore lint/suspicious/noExplicitAny: tests assert on bodies rather than type them
const as = (who: Person, method: string, path: string, body?: unknown): Promise<Reply<any>> =>
  server.request(path, { method, body, token: null, headers: { cookie: who.cookie } });
const admin = (method: string, path: string, body?: unknown) => server.request(path, { method, body });
// biome-ignore lint/suspicious/noExplicitAny: tests assert on bodies rather than type them
const ok = async (reply: Promise<Reply<any>>) => {
  const answer = await reply;
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return answer;
};

const servedIn = async (name: string) => {
  const reply = await server.request("/api/client/features", { token: prodToken });
  return reply.body.features.find((flag: { name: string }) => flag.name === name);
};

/** A request by the owner holding the changes, approved by the other owner. */
async function approved(changes: unknown): Promise<number> {
  const draft = await as(owner, "POST", `${TEAM_PROD}/change-requests`, changes);
  expect(draft.status, JSON.stringify(draft.body)).toBe(200);
  const id = draft.body.id;
  await ok(as(owner, "PUT", `${TEAM}/change-requests/${id}/state`, { state: "In review" }));
  const approval = await as(reviewer, "PUT", `${TEAM}/change-requests/${id}/state`, { state: "Approved" });
  expect(approval.body.state).toBe("Approved");
  return id;
}

async function projectOwner(projects: string[]): Promise<Person> {
  const user = await createUser(server, { rootRole: "Viewer" });
  for (const project of projects) {
    await ok(
      admin("POST", `/api/admin/projects/${project}/access`, { roles: [4], users: [user.id], groups: [] }),
    );
  }
  return { id: user.id, cookie: await login(server, user.username, user.password) };
}

beforeAll(async () => {
  server = await startTestServer();
  for (const [id, mode] of [
    ["team", "open"],
    ["loose", "open"],
    ["hidden", "private"],
  ]) {
    await ok(admin("POST", "/api/admin/projects", { id, name: id, mode }));
  }
  owner = await projectOwner(["team", "loose"]);
  reviewer = await projectOwner(["team"]);
  prodToken = (
    await ok(
      admin("POST", "/api/admin/api-tokens", {
        tokenName: "prod",
        type: "client",
        environment: "production",
        projects: ["*"],
      }),
    )
  ).body.secret;
  globalSegment = (
    await ok(
      admin("POST", "/api/admin/segments", {
        name: "beta-everyone",
        constraints: [{ contextName: "userId", operator: "IN", values: ["beta"] }],
      }),
    )
  ).body.id;
  privateSegment = (
    await ok(admin("POST", "/api/admin/segments", { name: "hush-hush", project: "hidden", constraints: [] }))
  ).body.id;
  // A flag of the default project serves the global segment in production, which requires review.
  await ok(admin("POST", "/api/admin/projects/default/features", { name: "uses-global" }));
  await ok(
    admin("POST", "/api/admin/projects/default/features/uses-global/environments/production/strategies", {
      name: "default",
      segments: [globalSegment],
    }),
  );
  for (const project of ["default", "team"]) {
    await ok(
      admin("PUT", `/api/admin/projects/${project}/environments/production/change-requests/config`, {
        changeRequestsEnabled: true,
        requiredApprovals: 1,
      }),
    );
  }
});
afterAll(() => server?.close());

describe("a change request changes its own project only", () => {
  it("refuses a segment change to a global segment, and hides a private one", async () => {
    const before = await fingerprint(server);
    const global = await as(owner, "POST", `${TEAM_PROD}/change-requests`, {
      action: "updateSegment",
      payload: { id: globalSegment, name: "beta-everyone", project: "team", constraints: [] },
    });
    expect(global.status).toBe(403);
    expect(global.body.name).toBe("NoAccessError");
    expect(global.body.message).toContain("is global");
    const hidden = await as(owner, "POST", `${TEAM_PROD}/change-requests`, {
      action: "deleteSegment",
      payload: { id: privateSegment },
    });
    expect(hidden.status).toBe(404);
    expect(JSON.stringify(hidden.body)).not.toContain("hush-hush");
    expect(await fingerprint(server)).toEqual(before);
  });

  it("refuses a strategy naming another project's segment", async () => {
    await ok(admin("POST", `${TEAM}/features`, { name: "team-flag" }));
    const before = await fingerprint(server);
    const reply = await as(owner, "POST", `${TEAM_PROD}/change-requests`, {
      feature: "team-flag",
      action: "addStrategy",
      payload: { name: "default", segments: [privateSegment] },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.details).toEqual([
      { path: "segments", message: `Segment ${privateSegment} does not exist` },
    ]);
    expect(await fingerprint(server)).toEqual(before);
  });
});

describe("a review approves what is applied", () => {
  it("finds a conflict when a segment the change names was edited after approval", async () => {
    await ok(admin("POST", `${TEAM}/features`, { name: "qa-only" }));
    const qa = (
      await ok(
        admin("POST", "/api/admin/segments", {
          name: "qa-bot",
          project: "team",
          constraints: [{ contextName: "userId", operator: "IN", values: ["qa-bot"] }],
        }),
      )
    ).body.id;
    const id = await approved([
      { feature: "qa-only", action: "addStrategy", payload: { name: "default", segments: [qa] } },
      { feature: "qa-only", action: "updateEnabled", payload: { enabled: true } },
    ]);
    // No environment that requires review uses the segment yet, so an Editor's edit goes straight through.
    const made = await createUser(server, { rootRole: "Editor" });
    const editor = { id: made.id, cookie: await login(server, made.username, made.password) };
    const edit = await as(editor, "PUT", `/api/admin/segments/${qa}`, {
      name: "qa-bot",
      project: "team",
      constraints: [],
    });
    expect(edit.status).toBe(204);
    const apply = await as(owner, "PUT", `${TEAM}/change-requests/${id}/state`, { state: "Applied" });
    expect(apply.status).toBe(409);
    expect(apply.body.message).toContain(`segment ${qa}`);
    expect((await servedIn("qa-only"))?.enabled).toBe(false);
  });

  it("keeps the action a change was drafted as when it is edited", async () => {
    await ok(admin("POST", `${TEAM}/features`, { name: "edited" }));
    const draft = await ok(
      as(owner, "POST", `${TEAM_PROD}/change-requests`, {
        feature: "edited",
        action: "addStrategy",
        payload: { name: "default" },
      }),
    );
    const change = draft.body.features[0].changes[0];
    const before = await fingerprint(server);
    const edit = await as(owner, "PUT", `${TEAM}/change-requests/${draft.body.id}/changes/${change.id}`, {
      action: "updateEnabled",
      payload: { enabled: true },
    });
    expect(edit.status).toBe(400);
    expect(edit.body.message).toContain("is addStrategy");
    expect(await fingerprint(server)).toEqual(before);
    await ok(as(owner, "DELETE", `${TEAM}/change-requests/${draft.body.id}`));
  });
});

describe("nothing outside a change request changes what a reviewed environment serves", () => {
  it("refuses to move a flag out of a project that requires review, and back", async () => {
    await ok(admin("POST", `${TEAM}/features`, { name: "mover" }));
    await ok(admin("POST", "/api/admin/projects/loose/features", { name: "incomer" }));
    const before = await fingerprint(server);
    const out = await as(owner, "PATCH", `${TEAM}/features/mover`, [
      { op: "replace", path: "/project", value: "loose" },
    ]);
    expect(out.status).toBe(403);
    expect(out.body.message).toContain("requires change requests");
    const into = await as(owner, "PATCH", "/api/admin/projects/loose/features/incomer", [
      { op: "replace", path: "/project", value: "team" },
    ]);
    expect(into.status).toBe(403);
    expect(await fingerprint(server)).toEqual(before);
  });

  it("revives an archived flag switched off everywhere, as the reference does", async () => {
    await ok(admin("POST", `${TEAM}/features`, { name: "phoenix" }));
    const id = await approved({ feature: "phoenix", action: "updateEnabled", payload: { enabled: true } });
    await ok(as(owner, "PUT", `${TEAM}/change-requests/${id}/state`, { state: "Applied" }));
    expect((await servedIn("phoenix"))?.enabled).toBe(true);
    await ok(admin("DELETE", `${TEAM}/features/phoenix`));
    await ok(as(owner, "POST", `${TEAM}/revive`, { features: ["phoenix"] }));
    expect((await servedIn("phoenix"))?.enabled).toBe(false);
  });

  it("refuses to remove an environment that requires review from the project", async () => {
    const before = await fingerprint(server);
    const removed = await as(owner, "DELETE", `${TEAM}/environments/production`);
    expect(removed.status).toBe(403);
    expect(removed.body.name).toBe("NoAccessError");
    expect(await fingerprint(server)).toEqual(before);
  });
});
