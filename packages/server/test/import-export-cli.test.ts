import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, login } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

// The `signalbox` command, run as a child process against test services: export from one,
// validate and import into another, and its refusals and exit codes.

const CLI = fileURLToPath(new URL("../src/signalbox-cli.ts", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function signalbox(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=signalbox-source", "--import", "tsx", CLI, ...args],
      {
        env: { ...process.env, SIGNALBOX_URL: "", SIGNALBOX_TOKEN: "", ...env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

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

  it("says what is wrong with its use, and whether the service could be reached", async () => {
    const noToken = await signalbox(["export", "--environment", "development", "--url", source.url]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/no token: give --token or set SIGNALBOX_TOKEN/);
    const unknown = await signalbox(["publish", "--token", "x"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/expected export, validate or import/);
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
