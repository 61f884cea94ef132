import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";
import { signalbox } from "./support/signalbox-command.js";

// `signalbox compare` against two running services configured alike, as after a migration:
// it agrees while they serve the same flags, and names the flag whose rollout was changed on one.

const ENV = "/environments/development";

async function configure(server: TestServer, extraSegmentFirst: boolean): Promise<string> {
  // One service has a segment the other lacks, made first, so the same segment has another id.
  if (extraSegmentFirst) {
    await server.request("/api/admin/segments", {
      method: "POST",
      body: { name: "unused", constraints: [] },
    });
  }
  const segment = await server.request("/api/admin/segments", {
    method: "POST",
    body: {
      name: "nordics",
      constraints: [{ contextName: "country", operator: "IN", values: ["NO", "SE", "DK"] }],
    },
  });
  const flags = "/api/admin/projects/default/features";
  for (const name of ["checkout", "banner", "beta-users"]) {
    await server.request(flags, { method: "POST", body: { name } });
  }
  const rollout = await server.request(`${flags}/checkout${ENV}/strategies`, {
    method: "POST",
    body: {
      name: "flexibleRollout",
      parameters: { rollout: "50", stickiness: "default", groupId: "checkout" },
      constraints: [{ contextName: "plan", operator: "IN", values: ["pro", "enterprise"] }],
      variants: [
        { name: "blue", weight: 500, weightType: "variable", stickiness: "default" },
        { name: "green", weight: 500, weightType: "variable", stickiness: "default" },
      ],
    },
  });
  await server.request(`${flags}/banner${ENV}/strategies`, {
    method: "POST",
    body: {
      name: "flexibleRollout",
      parameters: { rollout: "30", stickiness: "default", groupId: "banner" },
      segments: [segment.body.id],
    },
  });
  await server.request(`${flags}/beta-users${ENV}/strategies`, {
    method: "POST",
    body: { name: "userWithId", parameters: { userIds: "user-1,user-2,user-7" } },
  });
  // Switched on once they have their strategies: one switched on without gets a default one.
  for (const name of ["checkout", "banner", "beta-users"]) {
    await server.request(`${flags}/${name}${ENV}/on`, { method: "POST" });
  }
  return rollout.body.id;
}

describe("signalbox compare", () => {
  let from: TestServer;
  let to: TestServer;
  let checkoutOnTo: string;

  beforeAll(async () => {
    [from, to] = await Promise.all([startTestServer(), startTestServer()]);
    await configure(from, false);
    checkoutOnTo = await configure(to, true);
  });
  afterAll(async () => {
    await Promise.all([from?.close(), to?.close()]);
  });

  const compare = (...extra: string[]) =>
    signalbox([
      "compare",
      "--from",
      from.url,
      "--from-token",
      CLIENT_TOKEN,
      "--to",
      `${to.url}/api`,
      "--to-token",
      CLIENT_TOKEN,
      "--contexts",
      "400",
      "--seed",
      "1",
      ...extra,
    ]);

  it("agrees when both serve the same flags, whatever their segment ids", async () => {
    const run = await compare();
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toBe("compare: seed 1, 3 flags, 400 contexts, 1200 evaluations, 0 flags disagree\n");
  });

  it("names the flag whose rollout differs, with a context answered differently", async () => {
    const path = `/api/admin/projects/default/features/checkout${ENV}/strategies/${checkoutOnTo}`;
    const changed = await to.request(path, {
      method: "PUT",
      body: {
        name: "flexibleRollout",
        parameters: { rollout: "20", stickiness: "default", groupId: "checkout" },
        constraints: [{ contextName: "plan", operator: "IN", values: ["pro", "enterprise"] }],
        variants: [
          { name: "blue", weight: 500, weightType: "variable", stickiness: "default" },
          { name: "green", weight: 500, weightType: "variable", stickiness: "default" },
        ],
      },
    });
    expect(changed.status).toBe(200);
    const run = await compare();
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^checkout: \d+ contexts answered differently\n/);
    expect(run.stdout).toContain("  definitions differ at .strategies[0].parameters.rollout\n");
    expect(run.stdout).toMatch(/ {2}from: {4}\{"enabled":true,.*\n {2}to: {6}\{"enabled":false,/);
    expect(run.stdout).toMatch(/1 flags disagree\n$/);
    expect(run.stdout).not.toMatch(/^(banner|beta-users):/m);

    const json = await compare("--json");
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report.disagreements.map((found: { flag: string }) => found.flag)).toEqual(["checkout"]);
  });

  it("refuses what it cannot compare, with the exit code saying why", async () => {
    const refused = await signalbox([
      "compare",
      "--from",
      from.url,
      "--from-token",
      "default:development.wrong",
      "--to",
      to.url,
      "--to-token",
      CLIENT_TOKEN,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--from \(http:\/\/127\.0\.0\.1:\d+\/\) refused \(401\)/);

    const incomplete = await signalbox(["compare", "--from", from.url, "--to", to.url]);
    expect(incomplete.code).toBe(2);
    expect(incomplete.stderr).toMatch(/compare needs --from-token, --to-token/);

    const unreachable = await signalbox([
      "compare",
      "--from",
      "http://127.0.0.1:9",
      "--from-token",
      CLIENT_TOKEN,
      "--to",
      to.url,
      "--to-token",
      CLIENT_TOKEN,
    ]);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
  });
});
