import { InMemStorageProvider, Unleash } from "unleash-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { system } from "../src/access/actor.js";
import { buildApp } from "../src/app.js";
import { defaultConfig } from "../src/config.js";
import { type Connection, connect } from "../src/db/connection.js";
import { freshDatabase } from "./support/database.js";
import { CLIENT_TOKEN, startTestServer, type TestServer } from "./support/server.js";

const postgres = process.env.DATABASE_URL;

interface StreamEvent {
  type: string;
  id: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on the events rather than type them
  data: any;
}

/** An SDK's connection, read as it arrives: the events so far, and whether the server ended it. */
class EventStream {
  readonly events: StreamEvent[] = [];
  ended = false;
  private waiters: (() => void)[] = [];
  private readonly controller = new AbortController();

  static async open(url: string, token: string, headers: Record<string, string> = {}) {
    const stream = new EventStream();
    const response = await fetch(`${url}/api/client/streaming`, {
      headers: { authorization: token, ...headers },
      signal: stream.controller.signal,
    });
    return { response, stream: response.ok ? stream.read(response) : undefined };
  }

  private read(response: Response): this {
    const decoder = new TextDecoder();
    let buffered = "";
    const reader = response.body!.getReader();
    const pump = async () => {
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        let end = buffered.indexOf("\n\n");
        while (end !== -1) {
          this.parse(buffered.slice(0, end));
          buffered = buffered.slice(end + 2);
          end = buffered.indexOf("\n\n");
        }
      }
      this.ended = true;
      this.wake();
    };
    void pump();
    return this;
  }

  private parse(block: string) {
    const fields = new Map<string, string>();
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(": ");
      fields.set(line.slice(0, colon), line.slice(colon + 2));
    }
    if (!fields.has("event")) return;
    this.events.push({
      type: fields.get("event")!,
      id: fields.get("id"),
      data: JSON.parse(fields.get("data")!),
    });
    this.wake();
  }

  private wake() {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Waits until `count` events have arrived (or the stream ended), at most two seconds. */
  async next(count = this.events.length + 1): Promise<StreamEvent[]> {
    const deadline = Date.now() + 2000;
    while (this.events.length < count && !this.ended && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.events;
  }

  async end(): Promise<void> {
    const deadline = Date.now() + 2000;
    while (!this.ended && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  close() {
    this.controller.abort();
  }
}

const flip = (server: TestServer, name: string, on: boolean, project = "default") =>
  server.request(
    `/api/admin/projects/${project}/features/${name}/environments/development/${on ? "on" : "off"}`,
    {
      method: "POST",
    },
  );

async function createFlag(server: TestServer, name: string, project = "default") {
  const created = await server.request(`/api/admin/projects/${project}/features`, {
    method: "POST",
    body: { name },
  });
  expect(created.status).toBe(200);
}

async function clientToken(server: TestServer, projects: string[]): Promise<{ id: number; secret: string }> {
  const created = await server.request("/api/admin/api-tokens", {
    method: "POST",
    body: { tokenName: `stream-${Math.random()}`, type: "client", environment: "development", projects },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id, secret: created.body.secret };
}

function streamingSdk(url: string, token = CLIENT_TOKEN): Unleash {
  return new Unleash({
    appName: "streaming-test",
    url: `${url}/api`,
    customHeaders: { Authorization: token },
    experimentalMode: { type: "streaming" },
    disableMetrics: true,
    storageProvider: new InMemStorageProvider(),
    skipInstanceCountWarning: true,
  });
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("the streaming protocol (/api/client/streaming)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("pglite", undefined, { streaming: { maxStreams: 3, keepAliveMs: 200 } });
    await createFlag(server, "streamed");
    await createFlag(server, "elsewhere-flag");
  });
  afterAll(() => server?.close());

  it("hydrates first, then sends each change as it commits, with keep-alives between", async () => {
    const { response, stream } = await EventStream.open(server.url, CLIENT_TOKEN);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const [connected] = await stream!.next(1);
    expect(connected!.type).toBe("unleash-connected");
    const [hydration] = connected!.data.events;
    expect(hydration.type).toBe("hydration");
    expect(connected!.id).toBe(String(hydration.eventId));
    expect(hydration.features.map((feature: { name: string }) => feature.name)).toContain("streamed");

    await flip(server, "streamed", true);
    const [, updated] = await stream!.next(2);
    expect(updated!.type).toBe("unleash-updated");
    expect(updated!.data.events).toEqual([
      expect.objectContaining({
        type: "feature-updated",
        feature: expect.objectContaining({ name: "streamed", enabled: true }),
      }),
    ]);
    expect(Number(updated!.id)).toBeGreaterThan(Number(connected!.id));

    const metrics = await (await fetch(`${server.url}/internal-backstage/prometheus`)).text();
    expect(metrics).toMatch(/^client_streaming_connections 1$/m);
    stream!.close();
  });

  it("replays what a reconnecting SDK missed while it is remembered, and hydrates it otherwise", async () => {
    const { stream: first } = await EventStream.open(server.url, CLIENT_TOKEN);
    const [connected] = await first!.next(1);
    const firstRevision = Number(connected!.id);
    first!.close();
    await flip(server, "streamed", false);
    await flip(server, "elsewhere-flag", true);

    const { stream: resumed } = await EventStream.open(server.url, CLIENT_TOKEN, {
      "last-event-id": String(firstRevision),
    });
    const [replay] = await resumed!.next(1);
    expect(replay!.type).toBe("unleash-connected");
    expect(
      replay!.data.events.map((event: { type: string; feature: { name: string } }) => [
        event.type,
        event.feature.name,
      ]),
    ).toEqual([
      ["feature-updated", "streamed"],
      ["feature-updated", "elsewhere-flag"],
    ]);
    resumed!.close();

    // Before this instance first read the environment: nothing to replay from.
    const { stream: forgotten } = await EventStream.open(server.url, CLIENT_TOKEN, { "last-event-id": "1" });
    const [hydrated] = await forgotten!.next(1);
    expect(hydrated!.data.events.map((event: { type: string }) => event.type)).toEqual(["hydration"]);
    forgotten!.close();
  });

  it("sends a project's token only its project's flags, and ends its stream when the token is deleted", async () => {
    const created = await server.request("/api/admin/projects", {
      method: "POST",
      body: { id: "streams", name: "streams" },
    });
    expect(created.status).toBe(201);
    await createFlag(server, "in-streams", "streams");
    const token = await clientToken(server, ["streams"]);
    const { stream } = await EventStream.open(server.url, token.secret);
    const [connected] = await stream!.next(1);
    expect(connected!.data.events[0].features.map((feature: { name: string }) => feature.name)).toEqual([
      "in-streams",
    ]);

    await flip(server, "streamed", true);
    await flip(server, "in-streams", true, "streams");
    const [, updated] = await stream!.next(2);
    expect(updated!.data.events.map((event: { feature: { name: string } }) => event.feature.name)).toEqual([
      "in-streams",
    ]);

    const deleted = await server.request(`/api/admin/api-tokens/${token.id}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    await stream!.end();
    expect(stream!.ended).toBe(true);
    const again = await EventStream.open(server.url, token.secret);
    expect(again.response.status).toBe(401);
  });

  it("ends a revoked token's stream and keeps the others when one commit revokes it and changes a flag", async () => {
    const token = await clientToken(server, ["default"]);
    const { stream: revoked } = await EventStream.open(server.url, token.secret);
    const { stream: kept } = await EventStream.open(server.url, CLIENT_TOKEN);
    await revoked!.next(1);
    await kept!.next(1);
    const enabled = async () =>
      (
        await server.db
          .selectFrom("feature_environments")
          .select("enabled")
          .where("feature_name", "=", "streamed")
          .where("environment", "=", "development")
          .executeTakeFirstOrThrow()
      ).enabled;
    const next = !(await enabled());
    await server.services.events.change(system("test"), async ({ db, record, credentialsChanged }) => {
      await db.deleteFrom("api_tokens").where("id", "=", token.id).execute();
      credentialsChanged();
      await db
        .updateTable("feature_environments")
        .set({ enabled: next })
        .where("feature_name", "=", "streamed")
        .where("environment", "=", "development")
        .execute();
      record({ type: "feature-environment-enabled", featureName: "streamed", project: "default" });
    });
    await revoked!.end();
    expect(revoked!.ended).toBe(true);
    const [, updated] = await kept!.next(2);
    expect(updated!.data.events).toEqual([
      expect.objectContaining({ feature: expect.objectContaining({ name: "streamed", enabled: next }) }),
    ]);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    kept!.close();
  });

  it("answers 429 past the instance's limit of streams, which sends SDKs to polling", async () => {
    const open = await Promise.all([1, 2, 3].map(() => EventStream.open(server.url, CLIENT_TOKEN)));
    for (const { stream } of open) await stream!.next(1);
    const refused = await EventStream.open(server.url, CLIENT_TOKEN);
    expect(refused.response.status).toBe(429);
    expect(await refused.response.json()).toMatchObject({ name: "RateLimitError" });
    for (const { stream } of open) stream!.close();
    await until(() => server.services.clientStreams.size === 0, "streams to close");
  });

  it("keeps an idle stream open with comments", async () => {
    const response = await fetch(`${server.url}/api/client/streaming`, {
      headers: { authorization: CLIENT_TOKEN },
    });
    const reader = response.body!.getReader();
    let text = "";
    while (!text.includes(": keep-alive")) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
  });

  it("serves unleash-client in streaming mode: it is ready without polling and sees changes at once", async () => {
    await flip(server, "streamed", true);
    const sdk = streamingSdk(server.url);
    let polling = false;
    sdk.on("mode", () => {
      polling = true;
    });
    try {
      await new Promise<void>((resolve) => sdk.once("synchronized", () => resolve()));
      expect(sdk.isEnabled("streamed")).toBe(true);
      await flip(server, "streamed", false);
      await until(() => !sdk.isEnabled("streamed"), "the SDK to see the flag turned off");
      expect(polling).toBe(false);
    } finally {
      sdk.destroy();
    }
  });
});

describe.runIf(postgres)("streams on instances sharing one PostgreSQL database", () => {
  let primary: TestServer;
  let connection: Connection;
  let close: () => Promise<void>;
  let secondUrl: string;

  beforeAll(async () => {
    const shared = await freshDatabase("postgres");
    primary = await startTestServer("postgres", shared);
    connection = await connect({ databaseUrl: shared.url!, poolSize: 5 });
    const { app, services } = await buildApp(defaultConfig({ logLevel: "silent" }), connection.db);
    await services.events.start({ subscribe: connection.subscribe, pollMs: 60_000 });
    secondUrl = await app.listen({ port: 0, host: "127.0.0.1" });
    close = async () => {
      await services.events.stop();
      await app.close();
      await connection.close();
      await primary.close();
      await shared.close();
    };
    await createFlag(primary, "shared-flag");
  });
  afterAll(() => close?.());

  it("brings a change made on one instance to an SDK streaming from the other", async () => {
    const sdk = streamingSdk(secondUrl);
    try {
      await new Promise<void>((resolve) => sdk.once("synchronized", () => resolve()));
      expect(sdk.isEnabled("shared-flag")).toBe(false);
      await flip(primary, "shared-flag", true);
      await until(() => sdk.isEnabled("shared-flag"), "the change to reach the other instance's stream");
    } finally {
      sdk.destroy();
    }
  });

  it("ends a stream on the other instance when its token is deleted", async () => {
    const token = await clientToken(primary, ["*"]);
    const { stream } = await EventStream.open(secondUrl, token.secret);
    await stream!.next(1);
    const deleted = await primary.request(`/api/admin/api-tokens/${token.id}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    await stream!.end();
    expect(stream!.ended).toBe(true);
  });
});
