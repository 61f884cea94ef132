import type { ServerResponse } from "node:http";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig, type IntegrationSettings } from "../src/config.js";
import { up as giveEachAddonACursor } from "../src/db/migrations/0011_addon_cursors.js";
import { consumerName } from "../src/domains/addons/delivery.js";
import { type Answer, ok, type Receiver, startReceiver } from "./addons-receiver.js";
import { databaseKinds, freshDatabase } from "./support/database.js";
import { sessionOf } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

// Addons delivering for real, to HTTP servers on this machine: what each provider's
// receiver gets, retries, filters, the delivery log, and the refusal of private addresses
// at delivery. Retries are made short here; the service's own defaults are seconds.

const ADDONS = "/api/admin/addons";
const FEATURES = "/api/admin/projects/default/features";

const fast: Partial<IntegrationSettings> = { timeoutMs: 1000, retryMs: 20, giveUpMs: 3000 };

const status =
  (code: number, body = ""): Answer =>
  (_n, _request, response) =>
    response.writeHead(code).end(body);

describe.each(databaseKinds)("addon delivery (%s)", (kind) => {
  let server: TestServer;
  let slack: Receiver;
  let flags = 0;
  const receivers: Receiver[] = [];

  const receiver = async (answer?: Answer) => {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    slack = await receiver();
    server = await startTestServer(kind, undefined, {
      integrations: {
        ...defaultConfig().integrations,
        ...fast,
        allowPrivateUrl: true,
        slackApiUrl: `${slack.url}/api`,
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    for (const started of receivers) await started.close();
  });

  const addon = async (body: Record<string, unknown>, on: TestServer = server) => {
    const reply = await on.request(ADDONS, { method: "POST", body: { enabled: true, ...body } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.id as number;
  };
  const newFlag = async (on: TestServer = server, project = "default") => {
    flags += 1;
    const name = `delivered-${flags}`;
    const reply = await on.request(`/api/admin/projects/${project}/features`, {
      method: "POST",
      body: { name },
    });
    expect(reply.status).toBe(200);
    return name;
  };
  const deliveries = async (id: number, on: TestServer = server) =>
    (await on.request(`${ADDONS}/${id}/events`)).body.integrationEvents;
  const logged = async (id: number, count = 1, on: TestServer = server) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const entries = await deliveries(id, on);
      if (entries.length >= count) return entries;
      if (Date.now() > deadline) throw new Error(`addon ${id} logged ${entries.length} deliveries`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it("delivers a new flag in project default to a webhook within 2 s, as JSON", async () => {
    const hook = await receiver();
    const id = await addon({
      provider: "webhook",
      parameters: {
        url: `${hook.url}/hook`,
        authorization: "Bearer s3cret",
        customHeaders: '{"X-Team":"web"}',
      },
      events: ["feature-created"],
      projects: ["default"],
    });
    const started = Date.now();
    const name = await newFlag();
    const [request] = await hook.waitFor(1, 2000);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(request).toMatchObject({ method: "POST", path: "/hook" });
    expect(request!.headers).toMatchObject({
      "content-type": "application/json",
      authorization: "Bearer s3cret",
      "x-team": "web",
    });
    const event = JSON.parse(request!.body);
    expect(event).toMatchObject({ type: "feature-created", featureName: name, project: "default" });
    expect(event.data).toMatchObject({ name });

    const [entry] = await logged(id);
    expect(entry).toMatchObject({
      integrationId: id,
      state: "success",
      event: { type: "feature-created", featureName: name },
      details: { contentType: "application/json" },
      attempts: [{ attempt: 1, statusCode: 200, response: '{"ok":true}', error: null }],
    });
    expect(entry.id).toMatch(/^[0-9]+$/);
    // The URL is a secret of the webhook's: the log shows its origin only.
    expect(entry.details.url).toBe(`${hook.url}/…`);
    expect(JSON.stringify(entry)).not.toContain("s3cret");
  });

  it("never sends a stored secret to a new destination: changing where an addon sends drops the secrets not sent again", async () => {
    const team = await receiver();
    const attacker = await receiver();
    const id = await addon({
      provider: "webhook",
      parameters: {
        url: `${team.url}/hook`,
        authorization: "Bearer s3cret",
        customHeaders: '{"X-Key":"h3ader"}',
      },
      events: ["feature-created"],
    });
    const editor = { token: null, headers: { cookie: await sessionOf(server, "Editor") } };
    const moved = await server.request(`${ADDONS}/${id}`, {
      method: "PUT",
      ...editor,
      body: {
        provider: "webhook",
        enabled: true,
        parameters: { url: `${attacker.url}/steal`, authorization: "*****", customHeaders: "*****" },
        events: ["feature-created"],
      },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    await newFlag();
    await server.request(`${ADDONS}/${id}/test`, { method: "POST", ...editor });
    const arrived = await attacker.waitFor(2);
    expect(JSON.stringify(arrived.map((request) => request.headers))).not.toMatch(/s3cret|h3ader/);
    expect(team.received).toEqual([]);
    expect(moved.body.parameters).toEqual({ url: "*****" });

    // Sent again in clear, a secret goes with the new destination; a mask keeps it while the destination stays.
    const resent = await server.request(`${ADDONS}/${id}`, {
      method: "PUT",
      body: {
        provider: "webhook",
        enabled: true,
        parameters: { url: `${team.url}/hook`, authorization: "Bearer n3w" },
        events: ["feature-created"],
      },
    });
    expect(resent.status).toBe(200);
    const kept = await server.request(`${ADDONS}/${id}`, {
      method: "PUT",
      body: {
        provider: "webhook",
        enabled: true,
        parameters: { url: `${team.url}/hook`, authorization: "*****" },
        events: ["feature-created"],
      },
    });
    expect(kept.body.parameters).toEqual({ url: "*****", authorization: "*****" });
    await newFlag();
    const [delivered] = await team.waitFor(1);
    expect(delivered!.headers.authorization).toBe("Bearer n3w");

    // A required secret dropped so is asked for, and nothing changes.
    const datadog = await addon({
      provider: "datadog",
      parameters: { url: `${team.url}/dd`, apiKey: "dd-s3cret" },
      events: ["feature-created"],
    });
    const before = await server.db
      .selectFrom("addons")
      .selectAll()
      .where("id", "=", datadog)
      .executeTakeFirst();
    const refused = await server.request(`${ADDONS}/${datadog}`, {
      method: "PUT",
      body: {
        provider: "datadog",
        enabled: true,
        parameters: { url: `${attacker.url}/dd`, apiKey: "*****" },
        events: ["feature-created"],
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("apiKey");
    expect(
      await server.db.selectFrom("addons").selectAll().where("id", "=", datadog).executeTakeFirst(),
    ).toEqual(before);
    for (const made of [id, datadog]) await server.request(`${ADDONS}/${made}`, { method: "DELETE" });
  });

  it("leaves out of an addon's delivery log the events of a private project the reader may not see", async () => {
    const hook = await receiver();
    const created = await server.request("/api/admin/projects", {
      method: "POST",
      body: { id: "vault", name: "Vault", mode: "private" },
    });
    expect(created.status).toBe(201);
    const id = await addon({
      provider: "webhook",
      parameters: { url: hook.url },
      events: ["feature-created"],
    });
    const secret = await newFlag(server, "vault");
    const open = await newFlag();
    await logged(id, 2);
    const names = (entries: { event: { featureName: string } }[]) =>
      entries.map((entry) => entry.event.featureName);
    expect(names(await deliveries(id))).toEqual([open, secret]);
    const viewer = { token: null, headers: { cookie: await sessionOf(server, "Viewer") } };
    const seen = await server.request(`${ADDONS}/${id}/events`, viewer);
    expect(seen.status).toBe(200);
    expect(names(seen.body.integrationEvents)).toEqual([open]);
    await server.request(`${ADDONS}/${id}`, { method: "DELETE" });
  });

  it("retries 5xx with back-off: two 500s then 200 is one success with three attempts", async () => {
    const hook = await receiver((n, _request, response) =>
      n <= 2 ? response.writeHead(500).end(`down ${n}`) : ok(n, _request, response),
    );
    const id = await addon({
      provider: "webhook",
      parameters: { url: hook.url },
      events: ["feature-created"],
    });
    await newFlag();
    const [entry] = await logged(id);
    expect(hook.received).toHaveLength(3);
    expect(hook.received.map((request) => request.body)).toEqual(Array(3).fill(hook.received[0]!.body));
    expect(entry.state).toBe("success");
    expect(
      entry.attempts.map((attempt: { statusCode: number; response: string }) => [
        attempt.statusCode,
        attempt.response,
      ]),
    ).toEqual([
      [500, "down 1"],
      [500, "down 2"],
      [200, '{"ok":true}'],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hook.received).toHaveLength(3);
  });

  it("gives up after the bounded time and marks the delivery failed; 4xx is not retried", async () => {
    const down = await receiver(status(503, "maintenance"));
    const refusing = await receiver(status(400, "bad"));
    const downId = await addon({
      provider: "webhook",
      parameters: { url: down.url },
      events: ["feature-created"],
    });
    const refusingId = await addon({
      provider: "webhook",
      parameters: { url: refusing.url },
      events: ["feature-created"],
    });
    await newFlag();
    const [refused] = await logged(refusingId);
    expect(refused.state).toBe("failed");
    expect(refused.attempts).toHaveLength(1);
    const [failed] = await logged(downId);
    expect(failed.state).toBe("failed");
    expect(failed.stateDetails).toContain("answered 503");
    // 20 ms doubling within 3 s: 20+40+…+1280 fits, 2560 more does not.
    expect(failed.attempts.length).toBe(8);
    expect(down.received).toHaveLength(8);
    for (const id of [downId, refusingId]) await server.request(`${ADDONS}/${id}`, { method: "DELETE" });
  });

  it("keeps delivering to the other addons while one retries a dead destination", async () => {
    const dead = await receiver(status(503, "down"));
    const healthy = await receiver();
    const deadId = await addon({
      provider: "webhook",
      parameters: { url: dead.url },
      events: ["feature-created"],
    });
    await addon({ provider: "webhook", parameters: { url: healthy.url }, events: ["feature-created"] });
    const first = await newFlag();
    await healthy.waitFor(1, 2000);
    await dead.waitFor(2, 2000);
    // The dead destination is retried for up to 3 s; the next flag reaches the healthy one now.
    const second = await newFlag();
    const started = Date.now();
    await healthy.waitFor(2, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(healthy.received.map((request) => JSON.parse(request.body).featureName)).toEqual([first, second]);
    expect(await deliveries(deadId)).toEqual([]);
    // The dead destination's own events stay in order: the first is given up before the second is tried.
    const [failed] = await logged(deadId);
    expect([failed.event.featureName, failed.state]).toEqual([first, "failed"]);
    const tries = failed.attempts.length;
    await dead.waitFor(tries + 1, 2000);
    expect(dead.received.slice(0, tries + 1).map((request) => JSON.parse(request.body).featureName)).toEqual([
      ...Array(tries).fill(first),
      second,
    ]);
    await server.request(`${ADDONS}/${deadId}`, { method: "DELETE" });
  });

  it("stops delivering to an addon when it is disabled, and starts from then when enabled again", async () => {
    const hook = await receiver();
    const body = { provider: "webhook", parameters: { url: hook.url }, events: ["feature-created"] };
    const id = await addon(body);
    await newFlag();
    await hook.waitFor(1, 2000);
    const update = (enabled: boolean) =>
      server.request(`${ADDONS}/${id}`, { method: "PUT", body: { ...body, enabled } });
    expect((await update(false)).status).toBe(200);
    await newFlag();
    expect((await update(true)).status).toBe(200);
    const after = await newFlag();
    await hook.waitFor(2, 2000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hook.received.map((request) => JSON.parse(request.body).featureName).slice(1)).toEqual([after]);
    await server.request(`${ADDONS}/${id}`, { method: "DELETE" });
  });

  it("sends an addon only its events, projects and environments", async () => {
    await server.request("/api/admin/projects", {
      method: "POST",
      body: { id: "elsewhere", name: "Elsewhere" },
    });
    const other = await receiver();
    const all = await receiver();
    const archived = await receiver();
    const otherId = await addon({
      provider: "webhook",
      parameters: { url: other.url },
      events: ["feature-created"],
      projects: ["elsewhere"],
    });
    const allId = await addon({
      provider: "webhook",
      parameters: { url: all.url },
      events: ["feature-created", "feature-environment-enabled"],
      projects: ["*"],
      environments: ["production"],
    });
    await addon({ provider: "webhook", parameters: { url: archived.url }, events: ["feature-archived"] });
    const name = await newFlag();
    await server.request(`${FEATURES}/${name}/environments/development/on`, { method: "POST" });
    await server.request(`${FEATURES}/${name}/environments/production/on`, { method: "POST" });
    await logged(allId, 2);
    expect(all.received.map((request) => JSON.parse(request.body).type)).toEqual([
      "feature-created",
      "feature-environment-enabled",
    ]);
    expect(JSON.parse(all.received[1]!.body).environment).toBe("production");
    expect(other.received).toHaveLength(0);
    expect(await deliveries(otherId)).toHaveLength(0);
    expect(archived.received).toHaveLength(0);

    await newFlag(server, "elsewhere");
    await other.waitFor(1);
  });

  it("renders a body template with the event's fields", async () => {
    const hook = await receiver();
    await addon({
      provider: "webhook",
      parameters: {
        url: hook.url,
        contentType: "text/plain",
        bodyTemplate:
          "{{event.type}} of {{feature}} in {{event.project}} by {{event.createdBy}}: {{event.data.name}}",
      },
      events: ["feature-created"],
    });
    const name = await newFlag();
    const [request] = await hook.waitFor(1);
    expect(request!.headers["content-type"]).toBe("text/plain");
    const event = await server.db
      .selectFrom("events")
      .select("created_by")
      .where("type", "=", "feature-created")
      .where("feature_name", "=", name)
      .executeTakeFirstOrThrow();
    expect(request!.body).toBe(`feature-created of ${name} in default by ${event.created_by}: ${name}`);
  });

  it("posts to Slack's chat.postMessage with the bot token, per default channel and per slack tag", async () => {
    slack.received.length = 0;
    const id = await addon({
      provider: "slack-app",
      parameters: { accessToken: "xoxb-secret", defaultChannels: "releases, general" },
      events: ["feature-created", "feature-tagged"],
    });
    const name = await newFlag();
    await slack.waitFor(2);
    const reply = await server.request(`/api/admin/features/${name}/tags`, {
      method: "POST",
      body: { type: "slack", value: "team-checkout" },
    });
    expect(reply.status).toBe(201);
    await slack.waitFor(5);
    const posts = slack.received.map((request) => ({
      path: request.path,
      authorization: request.headers.authorization,
      ...JSON.parse(request.body),
    }));
    expect(posts.map((post) => post.channel)).toEqual([
      "releases",
      "general",
      "team-checkout",
      "releases",
      "general",
    ]);
    for (const post of posts) {
      expect(post.path).toBe("/api/chat.postMessage");
      expect(post.authorization).toBe("Bearer xoxb-secret");
    }
    expect(posts[0].text).toContain(`*${name}*`);
    expect(posts[0].text).toContain("created feature flag");
    const [tagged] = await logged(id, 2);
    expect(tagged.state).toBe("success");
    expect(tagged.details.targets).toEqual(["team-checkout", "releases", "general"]);
  });

  it("posts to a Slack incoming webhook (the spec's `slack`): the default channel, or the flag's slack tags", async () => {
    const hook = await receiver();
    const id = await addon({
      provider: "slack",
      parameters: {
        url: `${hook.url}/services/T0/B0/secret`,
        defaultChannel: "releases",
        emojiIcon: ":rocket:",
        customHeaders: '{"X-Team": "checkout"}',
      },
      events: ["feature-created", "feature-tagged"],
    });
    const name = await newFlag();
    const [created] = await hook.waitFor(1);
    expect(created!.method).toBe("POST");
    expect(created!.path).toBe("/services/T0/B0/secret");
    expect(created!.headers["content-type"]).toBe("application/json");
    expect(created!.headers["x-team"]).toBe("checkout");
    const message = JSON.parse(created!.body);
    expect(message).toEqual({
      username: "Signalbox",
      icon_emoji: ":rocket:",
      channel: "#releases",
      text: expect.stringContaining(`created feature flag *${name}*`),
    });
    // A flag's slack tags name its channels, in place of the default one.
    await server.request(`/api/admin/features/${name}/tags`, {
      method: "POST",
      body: { type: "slack", value: "team-checkout" },
    });
    await hook.waitFor(2);
    expect(JSON.parse(hook.received[1]!.body).channel).toBe("#team-checkout");
    const [tagged] = await logged(id, 2);
    expect(tagged.state).toBe("success");
  });

  it("marks a Slack post that Slack answers ok: false as not delivered", async () => {
    const refusingSlack = await receiver((_n, _request, response) =>
      response
        .writeHead(200, { "content-type": "application/json" })
        .end('{"ok":false,"error":"channel_not_found"}'),
    );
    const other = await startTestServer(kind, undefined, {
      integrations: {
        ...defaultConfig().integrations,
        ...fast,
        allowPrivateUrl: true,
        slackApiUrl: refusingSlack.url,
      },
    });
    try {
      const id = await addon(
        {
          provider: "slack-app",
          parameters: { accessToken: "xoxb-1", defaultChannels: "nope" },
          events: ["feature-created"],
        },
        other,
      );
      await newFlag(other);
      const [entry] = await logged(id, 1, other);
      expect(entry.state).toBe("failed");
      expect(entry.attempts[0].response).toContain("channel_not_found");
    } finally {
      await other.close();
    }
  });

  it.each(["teams", "teamsworkflow"])("posts an Adaptive Card to Microsoft Teams (%s)", async (provider) => {
    const teams = await receiver();
    const id = await addon({
      provider,
      parameters: { url: `${teams.url}/webhookb2/x` },
      events: ["feature-created"],
    });
    const name = await newFlag();
    const [request] = await teams.waitFor(1);
    await server.request(`${ADDONS}/${id}`, { method: "DELETE" });
    const body = JSON.parse(request!.body);
    expect(request!.path).toBe("/webhookb2/x");
    expect(body.type).toBe("message");
    expect(body.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    const card = body.attachments[0].content;
    expect(card.type).toBe("AdaptiveCard");
    expect(JSON.stringify(card.body)).toContain(`**${name}**`);
    expect(card.body[2].facts).toContainEqual({ title: "Flag", value: name });
  });

  it("sends New Relic's Event API the event's fields, gzipped, with the license key", async () => {
    const newRelic = await receiver();
    const id = await addon({
      provider: "new-relic",
      parameters: { url: `${newRelic.url}/v1/accounts/42/events`, licenseKey: "nr-secret" },
      events: ["feature-created"],
    });
    const name = await newFlag();
    const [request] = await newRelic.waitFor(1);
    expect(request!.path).toBe("/v1/accounts/42/events");
    expect(request!.headers["api-key"]).toBe("nr-secret");
    expect(request!.headers["content-encoding"]).toBe("gzip");
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({
      eventType: "UnleashServiceEvent",
      unleashEventType: "feature-created",
      featureName: name,
      project: "default",
      createdBy: "init-admin",
      name,
      type: "release",
      enabled: false,
    });
    expect(body.timestamp).toBe(body.createdAt);
    expect(Math.abs(Date.now() - body.createdAt)).toBeLessThan(10_000);
    // Nested values are not attributes New Relic keeps.
    expect(body).not.toHaveProperty("environments");
    const [entry] = await logged(id);
    expect(entry.state).toBe("success");
    expect(JSON.parse(entry.details.body)).toEqual(body);
    expect(JSON.stringify(entry)).not.toContain("nr-secret");

    // A body template is the event sent.
    await server.request(`${ADDONS}/${id}`, {
      method: "PUT",
      body: {
        provider: "new-relic",
        enabled: true,
        events: ["feature-created"],
        parameters: {
          url: `${newRelic.url}/v1/accounts/42/events`,
          licenseKey: "*****",
          bodyTemplate: '{"eventType": "FlagChange", "flag": "{{event.featureName}}"}',
        },
      },
    });
    const templated = await newFlag();
    await newRelic.waitFor(2);
    expect(JSON.parse(newRelic.received[1]!.body)).toEqual({ eventType: "FlagChange", flag: templated });
    expect(newRelic.received[1]!.headers["api-key"]).toBe("nr-secret");
    await server.request(`${ADDONS}/${id}`, { method: "DELETE" });
  });

  it("sends Datadog an event with the API key header and the flag's tags", async () => {
    const datadog = await receiver((_n, _request, response) =>
      response.writeHead(202).end('{"status":"ok"}'),
    );
    await addon({
      provider: "datadog",
      parameters: { url: `${datadog.url}/api/v1/events`, apiKey: "dd-secret", sourceTypeName: "signalbox" },
      events: ["feature-created", "feature-tagged"],
    });
    const name = await newFlag();
    await datadog.waitFor(1);
    await server.request(`/api/admin/features/${name}/tags`, {
      method: "POST",
      body: { type: "datadog", value: "team:checkout" },
    });
    const [created, tagged] = await datadog.waitFor(2);
    expect(created!.path).toBe("/api/v1/events");
    expect(created!.headers["dd-api-key"]).toBe("dd-secret");
    const body = JSON.parse(created!.body);
    expect(body).toMatchObject({
      title: "Signalbox notification update",
      tags: [],
      source_type_name: "signalbox",
    });
    expect(body.text).toMatch(/^%%% \n.*created feature flag \*\*.*\*\*.*\n %%% $/s);
    expect(JSON.parse(tagged!.body).tags).toContain("datadog:team:checkout");
  });

  it("sends a test event once, now, answering the log entry it makes, without writing the event log", async () => {
    const hook = await receiver();
    // Disabled and listening to nothing: a test send goes regardless, as feature-created.
    const id = await addon({
      provider: "webhook",
      enabled: false,
      parameters: { url: hook.url },
      events: [],
    });
    const reply = await server.request(`${ADDONS}/${id}/test`, { method: "POST" });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(hook.received).toHaveLength(1);
    const sent = JSON.parse(hook.received[0]!.body);
    expect(sent).toMatchObject({
      type: "feature-created",
      featureName: "signalbox-test-event",
      project: "default",
      data: { name: "signalbox-test-event", test: true },
    });
    expect(sent.createdBy).toEqual(expect.any(String));
    expect(reply.body).toMatchObject({
      integrationId: id,
      state: "success",
      stateDetails: "Delivered (200) after 1 attempt.",
      event: { type: "feature-created", featureName: "signalbox-test-event" },
      attempts: [{ attempt: 1, statusCode: 200, response: '{"ok":true}', error: null }],
    });
    expect(await deliveries(id)).toEqual([reply.body]);
    const written = await server.db
      .selectFrom("events")
      .select("id")
      .where("feature_name", "=", "signalbox-test-event")
      .execute();
    expect(written).toHaveLength(0);
  });

  it("logs a test send the receiver refuses with 500 as failed, after one attempt", async () => {
    const down = await receiver(status(500, "broken"));
    const id = await addon({
      provider: "webhook",
      enabled: false,
      parameters: { url: down.url },
      events: ["feature-archived", "feature-created"],
    });
    const reply = await server.request(`${ADDONS}/${id}/test`, { method: "POST" });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      state: "failed",
      event: { type: "feature-archived", data: { test: true } },
      attempts: [{ attempt: 1, statusCode: 500, response: "broken" }],
    });
    expect(reply.body.attempts).toHaveLength(1);
    expect(reply.body.stateDetails).toContain("500");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(down.received).toHaveLength(1);
    expect(await deliveries(id)).toEqual([reply.body]);
  });

  it("answers a test send to an unknown addon with 404, and a Viewer's with 403", async () => {
    expect((await server.request(`${ADDONS}/999999/test`, { method: "POST" })).status).toBe(404);
    const hook = await receiver();
    const id = await addon({
      provider: "webhook",
      enabled: false,
      parameters: { url: hook.url },
      events: [],
    });
    const viewer = await sessionOf(server, "Viewer");
    const refused = await server.request(`${ADDONS}/${id}/test`, {
      method: "POST",
      token: null,
      headers: { cookie: viewer },
    });
    expect(refused.status).toBe(403);
    expect(hook.received).toHaveLength(0);
    expect(await deliveries(id)).toHaveLength(0);
  });

  it("does not hold up the change that caused the event when a receiver hangs", async () => {
    const hanging = await receiver(() => {});
    await addon({ provider: "webhook", parameters: { url: hanging.url }, events: ["feature-created"] });
    await newFlag();
    await hanging.waitFor(1);
    const started = Date.now();
    await newFlag();
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe.each(databaseKinds)("addon destinations on private addresses (%s)", (kind) => {
  let server: TestServer;
  let local: Receiver;
  let inner: Receiver;
  let redirecting: Receiver;

  beforeAll(async () => {
    local = await startReceiver();
    inner = await startReceiver();
    redirecting = await startReceiver((_n, _request, response: ServerResponse) =>
      response.writeHead(307, { location: `${inner.url}/admin` }).end(),
    );
    server = await startTestServer(kind, undefined, {
      integrations: {
        ...defaultConfig().integrations,
        ...fast,
        allowList: ["localhost"],
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    for (const started of [local, inner, redirecting]) await started?.close();
  });

  const logged = async (id: number) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const entries = (await server.request(`${ADDONS}/${id}/events`)).body.integrationEvents;
      if (entries.length > 0) return entries;
      if (Date.now() > deadline) throw new Error(`addon ${id} logged nothing`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  let flags = 0;
  const newFlag = () => {
    flags += 1;
    return server.request(FEATURES, { method: "POST", body: { name: `guarded-${flags}` } });
  };

  it("refuses a private address at creation, and lets a listed host through", async () => {
    const refused = await server.request(ADDONS, {
      method: "POST",
      body: {
        provider: "webhook",
        enabled: true,
        parameters: { url: local.url },
        events: ["feature-created"],
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("127.0.0.1");
    expect(await server.db.selectFrom("addons").selectAll().execute()).toHaveLength(0);

    const listed = await server.request(ADDONS, {
      method: "POST",
      body: {
        provider: "webhook",
        enabled: true,
        parameters: { url: `http://localhost:${local.port}/` },
        events: ["feature-created"],
      },
    });
    expect(listed.status).toBe(201);
    await newFlag();
    await local.waitFor(1);
    const [entry] = await logged(listed.body.id);
    expect(entry.state).toBe("success");
    await server.request(`${ADDONS}/${listed.body.id}`, { method: "DELETE" });
  });

  it("refuses at delivery an addon saved when private addresses were allowed", async () => {
    // As an instance configured otherwise would have stored it.
    const { id } = await server.db
      .insertInto("addons")
      .values({
        provider: "webhook",
        description: null,
        enabled: true,
        parameters: JSON.stringify({ url: `${inner.url}/` }),
        events: JSON.stringify(["feature-created"]),
        projects: "[]",
        environments: "[]",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    // Its cursor, as that instance's transaction would have made it; this one finds the addon on its next look.
    await server.services.events.outbox.open(server.db, consumerName(id));
    await newFlag();
    const [entry] = await logged(id);
    expect(entry.state).toBe("failed");
    expect(entry.stateDetails).toContain("private");
    expect(entry.attempts).toHaveLength(1);
    expect(inner.received).toHaveLength(0);
    // A test send goes through the same refusal.
    const tested = await server.request(`${ADDONS}/${id}/test`, { method: "POST" });
    expect(tested.body).toMatchObject({ state: "failed", attempts: [{ attempt: 1 }] });
    expect(tested.body.stateDetails).toContain("private");
    expect(inner.received).toHaveLength(0);
    await server.request(`${ADDONS}/${id}`, { method: "DELETE" });
  });

  it("checks a redirect's destination before following it", async () => {
    const created = await server.request(ADDONS, {
      method: "POST",
      body: {
        provider: "webhook",
        enabled: true,
        parameters: { url: `http://localhost:${redirecting.port}/` },
        events: ["feature-created"],
      },
    });
    expect(created.status).toBe(201);
    await newFlag();
    const [entry] = await logged(created.body.id);
    expect(redirecting.received).toHaveLength(1);
    expect(inner.received).toHaveLength(0);
    expect(entry.state).toBe("failed");
    expect(entry.stateDetails).toContain("127.0.0.1");
  });
});

describe.runIf(process.env.DATABASE_URL)("addon delivery on instances sharing one database", () => {
  it("delivers each event once, and goes on from another instance when the one that made the addon stops", async () => {
    const hook = await startReceiver();
    const database = await freshDatabase("postgres");
    const config = { integrations: { ...defaultConfig().integrations, ...fast, allowPrivateUrl: true } };
    const first = await startTestServer("postgres", database, config);
    const second = await startTestServer("postgres", database, config);
    const flag = (on: TestServer, name: string) => on.request(FEATURES, { method: "POST", body: { name } });
    let firstOpen = true;
    try {
      const created = await first.request(ADDONS, {
        method: "POST",
        body: {
          provider: "webhook",
          enabled: true,
          parameters: { url: hook.url },
          events: ["feature-created"],
        },
      });
      expect(created.status).toBe(201);
      // The second instance finds the addon on its next look (every half second in tests).
      await new Promise((resolve) => setTimeout(resolve, 700));
      for (const name of ["shared-1", "shared-2", "shared-3"])
        expect((await flag(first, name)).status).toBe(200);
      await hook.waitFor(3, 3000);
      await first.close();
      firstOpen = false;
      expect((await flag(second, "shared-4")).status).toBe(200);
      await hook.waitFor(4, 3000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hook.received.map((request) => JSON.parse(request.body).featureName)).toEqual([
        "shared-1",
        "shared-2",
        "shared-3",
        "shared-4",
      ]);
    } finally {
      if (firstOpen) await first.close();
      await second.close();
      await database.close();
      await hook.close();
    }
  });
});

describe("upgrading to a cursor per addon (migration 0011)", () => {
  it("starts each enabled addon where the shared cursor was, and drops the shared one", async () => {
    const database = await freshDatabase("pglite");
    try {
      const { db } = database;
      const row = (enabled: boolean) => ({
        provider: "webhook",
        description: null,
        enabled,
        parameters: "{}",
        events: '["feature-created"]',
        projects: "[]",
        environments: "[]",
      });
      const ids = await db
        .insertInto("addons")
        .values([row(true), row(false), row(true)])
        .returning("id")
        .execute();
      // As a release before it left the table: one cursor for every addon, 7 events behind.
      await db.deleteFrom("outbox_cursors").where("consumer", "like", "addon%").execute();
      await db.insertInto("outbox_cursors").values({ consumer: "addons", position: 7 }).execute();
      await giveEachAddonACursor(db as unknown as Kysely<unknown>);
      const cursors = await db
        .selectFrom("outbox_cursors")
        .select(["consumer", "position"])
        .where("consumer", "like", "addon%")
        .orderBy("consumer")
        .execute();
      expect(cursors).toEqual([
        { consumer: consumerName(ids[0]!.id), position: 7 },
        { consumer: consumerName(ids[2]!.id), position: 7 },
      ]);
    } finally {
      await database.close();
    }
  });
});
