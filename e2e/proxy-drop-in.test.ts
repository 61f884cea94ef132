import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SignalboxProxy, startStandalone } from "@signalbox/proxy";
import type { RunningServer } from "@signalbox/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type Admin,
  adminOf,
  browserSdkSeesTheService,
  CLIENT,
  createBrowserFlags,
  startService,
} from "./support/service.js";

// A deployment of @unleash/proxy moved to Signalbox without touching its environment: the
// browser SDK gets its flags, and the log says once which Unleash name stands for which.
describe("the proxy started with @unleash/proxy's environment", () => {
  let service: RunningServer;
  let admin: Admin;
  let proxy: SignalboxProxy;
  let backupDir: string;
  const logged: Array<{ level: string; msg: string }> = [];
  const reference: Record<string, string> = {};

  beforeAll(async () => {
    service = await startService();
    admin = adminOf(service);
    await createBrowserFlags(admin);
    backupDir = await mkdtemp(join(tmpdir(), "signalbox-e2e-proxy-"));
    Object.assign(reference, {
      // As in @unleash/proxy's README, "Run with Docker", pointed at this service.
      UNLEASH_PROXY_CLIENT_KEYS: "some-secret",
      UNLEASH_URL: `${service.url}/api/`,
      UNLEASH_API_TOKEN: CLIENT,
      // Its documented intervals, shortened so a change and the usage report arrive within the test.
      UNLEASH_FETCH_INTERVAL: "200",
      UNLEASH_METRICS_INTERVAL: "500",
      UNLEASH_ENVIRONMENT: "development",
    });
    const write = process.stdout.write.bind(process.stdout);
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      const text = String(chunk);
      if (!text.includes('"name":"signalbox-proxy"')) return write(chunk);
      logged.push(JSON.parse(text));
      return true;
    });
    proxy = await startStandalone({
      ...reference,
      // Where this test listens and keeps the backup.
      PORT: "0",
      HOST: "127.0.0.1",
      BACKUP_DIR: backupDir,
    });
    await proxy.ready;
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await proxy?.close();
    await service?.close();
    await rm(backupDir, { recursive: true, force: true });
  });

  it("logs one line per Unleash name, naming the Signalbox one", () => {
    for (const alias of Object.keys(reference)) {
      const name = alias.replace("UNLEASH_", "SERVICE_");
      expect(logged.filter((entry) => entry.msg.includes(alias))).toEqual([
        expect.objectContaining({ level: "warn", msg: `${alias} is read as ${name}, its Signalbox name` }),
      ]);
    }
  });

  it("serves the browser SDK the flags configured in the service", async () => {
    const address = proxy.app.server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    await browserSdkSeesTheService(admin, `http://127.0.0.1:${port}/proxy`, "some-secret");
  });
});
