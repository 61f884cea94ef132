import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** The value of one sample in Prometheus text, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((label) => line.includes(label))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

describe("/internal-backstage/prometheus", () => {
  it("reports requests by route, SDK documents, events written, the pool and outbox lag", async () => {
    // A consumer that never finishes a delivery, until the server stops it.
    await server.services.events.outbox.register({
      name: "lagging",
      handle: (_, signal) => new Promise((_, reject) => signal.addEventListener("abort", reject)),
    });
    const created = await server.request("/api/admin/projects/default/features", {
      method: "POST",
      body: { name: "measured" },
    });
    expect(created.status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect((await server.request("/api/client/features", { token: CLIENT_TOKEN })).status).toBe(200);
    }

    const reply = await server.request("/internal-backstage/prometheus", { token: null });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toContain("text/plain");
    const text = reply.body as string;
    expect(
      sample(text, "http_request_duration_milliseconds_count", {
        path: "/api/client/features",
        method: "GET",
        status: "200",
      }),
    ).toBe(3);
    expect(sample(text, "events_written_total", { type: "feature-created" })).toBe(1);
    expect(sample(text, "feature_toggle_update_total", { toggle: "measured", project: "default" })).toBe(1);
    expect(sample(text, "client_features_document_bytes", { environment: "development" })).toBeGreaterThan(
      100,
    );
    expect(sample(text, "client_features_rebuild_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(sample(text, "db_pool_used")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "db_pool_free")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "outbox_lag_events", { consumer: "lagging" })).toBeGreaterThanOrEqual(0);
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(0);
  });
});
