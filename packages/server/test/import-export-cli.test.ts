import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, login } from "./support/people.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "./support/server.js";
import { signalbox } from "./support/signalbox-command.js";

// The `signalbox` command, run as a child process against test services: export from one,
// validate and import into another, and its refusals and exit codes.

async function personalToken(server: TestServer): Promise<string> {
  const user = await createUser(server, { rootRole: "Admin" });
  const cookie = await login(server, user.username, user.password);
  const created = await server.request("/api/admin/user/tokens", {
    method: "POST",
    token: null,
    headers: { cookie },
    body: { description: "cli", expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
  });
  return created.body.secret;
}

describe("the signalbox command", () => {
  let source: TestServer;
  let target: TestServer;
  let sourceToken: string;
  let targetToken: string;
  let folder: string;

  beforeAll(async () => {
    [source, target] = await Promise.all([startTestServer(), startTestServer()]);
    [sourceToken, targetToken] = await Promise.all([personalToken(source), personalToken(target)]);
    folder = await mkdtemp(join(tmpdir(), "signalbox-cli-"));
    for (const name of ["alpha", "beta"]) {
      await source.request("/api/admin/projects/default/features", { method: "POST", body: { name } });
      await source.request(`/api/admin/projects/default/features/${name}/environments/development/on`, {
        method: "POST",
      });
    }
  });
  afterAll(async () => {
    await Promise.all([source?.close(), target?.close()]);
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it("exports to a file, validates it and imports it into another service", async () => {
    const file = join(folder, "default.json");
    const exported = await signalbox(
      [
        "export",
        "--project",
        "default",
        "--environment",
        "development",
        "--output",
        file,
        "--url",
        source.url,
      ],
      { SIGNALBOX_TOKEN: sourceToken },
    );
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/exported 2 flags, 2 strategies, 0 tags, 0 flags with dependencies/);
    const data = JSON.parse(await readFile(file, "utf8"));
    expect(data.features.map((flag: { name: string }) => flag.name).sort()).toEqual(["alpha", "beta"]);

    const where = ["--file", file, "--project", "default", "--environment", "development"];
    const checked = await signalbox(["validate", ...where, "--url", target.url, "--token", targetToken]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stderr).toMatch(/can be imported into project default, environment development/);
    expect((await target.request("/api/admin/projects/default/features")).body.features).toEqual([]);

    const imported = await signalbox(["import", ...where], {
      SIGNALBOX_URL: target.url,
      SIGNALBOX_TOKEN: targetToken,
    });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(
      /imported 2 flags, 2 strategies, 0 tags, 0 flags with dependencies into project default/,
    );
    const flags = (await target.request("/api/admin/projects/default/features")).body.features;
    expect(flags.map((flag: { name: string }) => flag.name).sort()).toEqual(["alpha", "beta"]);
  });

  it("refuses to import a file the service reports errors for, importing nothing", async () => {
    const file = join(folder, "bad.json");
    await writeFile(
      file,
      JSON.stringify({
        project: "default",
        environment: "development",
        data: {
          features: [{ name: "gamma" }],
          featureStrategies: [{ name: "noSuchStrategy", featureName: "gamma" }],
          tagTypes: [],
        },
      }),
    );
    const run = await signalbox(["import", "--file", file, "--url", target.url, "--token", targetToken]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /error: We detected the following custom strategy that needs to be created first:\n {2}- noSuchStrategy/,
    );
    expect(run.stderr).toMatch(/nothing was imported/);
    expect((await target.request("/api/admin/projects/default/features/gamma")).status).toBe(404);
  });

  it("refuses an import with an admin token, saying why once", async () => {
    const file = join(folder, "admin.json");
    await writeFile(
      file,
      JSON.stringify({
        features: [{ name: "delta" }],
        featureStrategies: [{ name: "default", featureName: "delta" }],
        tagTypes: [],
      }),
    );
    const where = ["--file", file, "--project", "default", "--environment", "development"];
    const run = await signalbox(["import", ...where, "--url", target.url, "--token", ADMIN_TOKEN]);
    expect(run.code).toBe(1);
    const reason = "You can't use an admin token to import features.";
    expect(run.stderr).toContain(`import refused (400): ${reason}`);
    expect(run.stderr.split(reason).length - 1).toBe(1);
    expect((await target.request("/api/admin/projects/default/features/delta")).status).toBe(404);
  });

  it("says what is wrong with its use, and whether the service could be reached", async () => {
    const noToken = await signalbox(["export", "--environment", "development", "--url", source.url]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/no token: give --token or set SIGNALBOX_TOKEN/);
    const unknown = await signalbox(["publish", "--token", "x"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/expected export, validate, import or compare/);
    const missing = await signalbox(["import", "--file", join(folder, "none.json"), "--token", "x"]);
    expect(missing.code).toBe(2);
    const unreachable = await signalbox([
      "export",
      "--environment",
      "development",
      "--url",
      "http://127.0.0.1:9",
      "--token",
      "x",
    ]);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
    const unknownEnvironment = await signalbox([
      "export",
      "--environment",
      "nowhere",
      "--url",
      source.url,
      "--token",
      sourceToken,
    ]);
    expect(unknownEnvironment.code).toBe(1);
    expect(unknownEnvironment.stderr).toMatch(/export refused \(404\)/);
  });

  it("imports an export larger than the service's 100 kB limit in several requests, parents first", async () => {
    const large = await startTestServer("pglite", undefined, { bodyLimit: 4 * 1024 * 1024 });
    try {
      // 600 flags written straight to the tables: the import under test is the slow part.
      const parents = Array.from({ length: 20 }, (_, i) => `large-parent-${i}`);
      const children = Array.from({ length: 580 }, (_, i) => `large-${i}`);
      const names = [...children, ...parents];
      await large.db
        .insertInto("features")
        .values(names.map((name) => ({ name, project: "default", description: `The ${name} flag` })))
        .execute();
      await large.db
        .insertInto("feature_environments")
        .values(names.map((name) => ({ feature_name: name, environment: "development", enabled: true })))
        .execute();
      await large.db
        .insertInto("feature_strategies")
        .values(
          names.map((name) => ({
            id: randomUUID(),
            feature_name: name,
            project_name: "default",
            environment: "development",
            strategy_name: "flexibleRollout",
            parameters: JSON.stringify({ rollout: "50", stickiness: "default", groupId: name }),
            constraints: JSON.stringify([
              { contextName: "appName", operator: "IN", values: ["web", "mobile"] },
            ]),
          })),
        )
        .execute();
      // The parents come last in the file; half the other flags depend on one.
      await large.db
        .insertInto("feature_dependencies")
        .values(
          children
            .filter((_, i) => i % 2 === 0)
            .map((child, i) => ({ child, parent: parents[i % 20]!, enabled: true })),
        )
        .execute();
      const largeToken = await personalToken(large);
      const file = join(folder, "six-hundred.json");
      const exported = await signalbox(
        ["export", "--project", "default", "--environment", "development", "--output", file],
        { SIGNALBOX_URL: large.url, SIGNALBOX_TOKEN: largeToken },
      );
      expect(exported.code, exported.stderr).toBe(0);
      const body = {
        project: "default",
        environment: "development",
        data: JSON.parse(await readFile(file, "utf8")),
      };
      expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(200 * 1024);

      // One request: too large for the default limit, which BODY_LIMIT raises.
      const direct = await target.request("/api/admin/features-batch/import", {
        method: "POST",
        token: targetToken,
        body,
      });
      expect(direct.status).toBe(413);
      expect(direct.body.message).toMatch(/\(102400 bytes; the BODY_LIMIT setting raises it\)/);
      const raised = await large.request("/api/admin/features-batch/validate", {
        method: "POST",
        token: largeToken,
        body,
      });
      expect(raised.status).toBe(200);

      const where = ["--file", file, "--project", "default", "--environment", "development"];
      const imported = await signalbox(["import", ...where, "--url", target.url, "--token", targetToken]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stderr).toMatch(
        /imported 600 flags, 600 strategies, 0 tags, 290 flags with dependencies into project default, environment development in [3-9] requests/,
      );
      const listed = (await target.request("/api/admin/projects/default/features")).body.features;
      expect(listed.filter((flag: { name: string }) => flag.name.startsWith("large-")).length).toBe(600);
      // A child sent in a later request than its parent, which the first request carries.
      const child = (await target.request("/api/admin/projects/default/features/large-578")).body;
      expect(child.dependencies).toEqual([{ feature: "large-parent-9", enabled: true, variants: [] }]);
      expect(child.environments.find((env: { name: string }) => env.name === "development").enabled).toBe(
        true,
      );
    } finally {
      await large.close();
    }
  }, 180_000);

  it("shows the progress of a large file on stderr", async () => {
    const file = join(folder, "large.json");
    const features = Array.from({ length: 1500 }, (_, i) => ({
      name: `bulk-${i}`,
      description: "x".repeat(40),
    }));
    await writeFile(
      file,
      JSON.stringify({
        features,
        featureStrategies: features.map((f) => ({ name: "default", featureName: f.name })),
        tagTypes: [],
      }),
    );
    const run = await signalbox([
      "validate",
      "--file",
      file,
      "--project",
      "default",
      "--environment",
      "development",
      "--url",
      target.url,
      "--token",
      targetToken,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/signalbox: sending 0% \(0 kB of \d+ kB\)/);
    expect(run.stderr).toMatch(/signalbox: sending 100% \(\d+ kB of \d+ kB\)/);
    expect(run.stderr).toMatch(/can be imported into project default, environment development: 1500 flags/);
  });
});
