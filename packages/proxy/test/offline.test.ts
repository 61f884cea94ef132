import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createProxy, type SignalboxProxy } from "../src/index.js";
import { eventually, flagDocument, recordingLogger } from "./support/fixtures.js";

// Unleash Edge's offline mode: a features file, served to the tokens listed, with no flag
// service anywhere (no URL, no token of its own).
describe("offline mode", () => {
  let folder: string;
  let file: string;
  let proxy: SignalboxProxy;
  const logger = recordingLogger();
  const get = (url: string, authorization?: string) =>
    proxy.app.inject({ method: "GET", url, headers: authorization ? { authorization } : {} });

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "signalbox-offline-"));
    file = join(folder, "features.json");
    await writeFile(file, JSON.stringify(flagDocument()));
    proxy = await createProxy(
      {
        offline: {
          bootstrapFile: file,
          clientTokens: ["server-sdk"],
          frontendTokens: ["browser-sdk"],
          reloadInterval: 30,
        },
        logger,
      },
      {},
    );
    await proxy.ready;
  });
  afterAll(async () => {
    await proxy.close();
    await rm(folder, { recursive: true, force: true });
  });

  test("serves the file to the listed client and frontend tokens, and refuses any other", async () => {
    const features = await get("/api/client/features", "server-sdk");
    expect(features.statusCode).toBe(200);
    expect(features.json().features.map((feature: { name: string }) => feature.name)).toEqual(
      flagDocument().features.map((feature) => feature.name),
    );
    const frontend = await get("/api/frontend?userId=42", "browser-sdk");
    expect(frontend.statusCode).toBe(200);
    const names = frontend.json().toggles.map((toggle: { name: string }) => toggle.name);
    expect(names).toContain("user-42");
    expect(names).not.toContain("off");

    expect((await get("/api/client/features", "browser-sdk")).statusCode).toBe(403);
    expect((await get("/api/client/features", "someone")).statusCode).toBe(401);
    expect((await get("/api/client/features")).statusCode).toBe(401);
  });

  test("takes SDKs' reports and sends them nowhere", async () => {
    const response = await proxy.app.inject({
      method: "POST",
      url: "/api/client/metrics",
      headers: { authorization: "server-sdk", "content-type": "application/json" },
      payload: {
        appName: "app",
        instanceId: "i",
        bucket: {
          start: "2026-01-01T00:00:00.000Z",
          stop: "2026-01-01T00:01:00.000Z",
          toggles: { simple: { yes: 1, no: 0 } },
        },
      },
    });
    expect(response.statusCode).toBe(202);
  });

  test("reads the file again, and keeps the last good configuration when it becomes unreadable", async () => {
    const document = flagDocument();
    await writeFile(
      file,
      JSON.stringify({
        ...document,
        features: [...document.features, { name: "added", enabled: true, strategies: [{ name: "default" }] }],
      }),
    );
    const names = async () =>
      (await get("/api/client/features", "server-sdk"))
        .json()
        .features.map((feature: { name: string }) => feature.name);
    await eventually(async () => expect(await names()).toContain("added"));

    await writeFile(file, "{ not json");
    await eventually(() => expect(logger.has("error", "Cannot read the offline features file")).toBe(true));
    expect(await names()).toContain("added");
  });
});

test("offline tokens without a file are refused at start, naming what to set", async () => {
  await expect(
    createProxy({ offline: { clientTokens: ["server-sdk"] }, logger: recordingLogger() }, {}),
  ).rejects.toThrow(/SERVICE_OFFLINE_BOOTSTRAP_FILE/);
});
