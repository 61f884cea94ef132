import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { databaseKinds } from "./support/database.js";
import { sessionOf } from "./support/people.js";
import { startTestServer, type TestServer } from "./support/server.js";

// Addons through the admin API, as an admin would manage them: the providers offered,
// creation, endpoint 3 with every status the spec lists for it (and the database unchanged
// after each refusal), masking of sensitive parameters, deletion, and the events recorded.
// Private addresses are not allowed here (the default), so a local URL is refused.

const ADDONS = "/api/admin/addons";
const PUBLIC_URL = "http://93.184.215.14/hook";

describe.each(databaseKinds)("addons (%s)", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => {
    await server?.close();
  });

  const webhook = (overrides: Record<string, unknown> = {}) => ({
    provider: "webhook",
    enabled: true,
    description: "ping the build",
    parameters: { url: PUBLIC_URL, authorization: "Bearer s3cret", contentType: "application/json" },
    events: ["feature-created"],
    projects: ["default"],
    environments: [],
    ...overrides,
  });
  const create = async (body: unknown = webhook()) => {
    const reply = await server.request(ADDONS, { method: "POST", body });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body as { id: number };
  };
  const row = (id: number) =>
    server.db.selectFrom("addons").selectAll().where("id", "=", id).executeTakeFirst();
  const eventsOfType = (type: string) =>
    server.db.selectFrom("events").selectAll().where("type", "=", type).orderBy("id").execute();

  it("lists the providers with their parameters and events", async () => {
    const reply = await server.request(ADDONS);
    expect(reply.status).toBe(200);
    const names = reply.body.providers.map((provider: { name: string }) => provider.name);
    expect(names).toEqual([
      "webhook",
      "slack",
      "slack-app",
      "teams",
      "teamsworkflow",
      "datadog",
      "new-relic",
    ]);
    // The spec's default providers are all offered: `slack` is the deprecated incoming webhook.
    const slack = reply.body.providers.find((provider: { name: string }) => provider.name === "slack");
    expect(slack.parameters.map((parameter: { name: string }) => parameter.name)).toEqual([
      "url",
      "username",
      "emojiIcon",
      "defaultChannel",
      "customHeaders",
    ]);
    const hook = reply.body.providers.find((provider: { name: string }) => provider.name === "webhook");
    expect(hook.parameters).toContainEqual(
      expect.objectContaining({ name: "url", type: "url", required: true, sensitive: true }),
    );
    expect(hook.parameters).toContainEqual(
      expect.objectContaining({ name: "bodyTemplate", required: false }),
    );
    expect(hook.events).toContain("feature-created");
    expect(Array.isArray(reply.body.addons)).toBe(true);
  });

  it("creates an addon: 201 with its location, sensitive parameters masked, an event without parameters", async () => {
    const reply = await server.request(ADDONS, { method: "POST", body: webhook() });
    expect(reply.status).toBe(201);
    expect(reply.headers.get("location")).toBe(`addons/${reply.body.id}`);
    expect(reply.body).toMatchObject({
      provider: "webhook",
      enabled: true,
      description: "ping the build",
      parameters: { url: "*****", authorization: "*****", contentType: "application/json" },
      events: ["feature-created"],
      projects: ["default"],
      environments: [],
    });
    expect((await row(reply.body.id))?.parameters).toMatchObject({
      url: PUBLIC_URL,
      authorization: "Bearer s3cret",
    });
    const [event] = (await eventsOfType("addon-config-created")).slice(-1);
    expect(event?.data).toEqual({
      id: reply.body.id,
      provider: "webhook",
      description: "ping the build",
      enabled: true,
      events: ["feature-created"],
      projects: ["default"],
      environments: [],
    });
    const listed = await server.request(ADDONS);
    const shown = listed.body.addons.find((addon: { id: number }) => addon.id === reply.body.id);
    expect(shown.parameters.url).toBe("*****");
    expect(JSON.stringify(listed.body)).not.toContain("s3cret");
    expect(JSON.stringify((await server.request(`${ADDONS}/${reply.body.id}`)).body)).not.toContain("s3cret");
  });

  it("creates the provider's tag type with the addon", async () => {
    await create({
      provider: "slack-app",
      enabled: true,
      parameters: { accessToken: "xoxb-1", defaultChannels: "general" },
      events: ["feature-created"],
    });
    const tagType = await server.request("/api/admin/tag-types/slack");
    expect(tagType.status).toBe(200);
    // A second one finds it there.
    await create({ provider: "slack-app", enabled: true, parameters: { accessToken: "xoxb-2" }, events: [] });
  });

  describe("endpoint 3 (PUT /api/admin/addons/:id)", () => {
    it("200: fields sent replace, fields absent stay, null empties, a null description stores ''", async () => {
      const { id } = await create();
      const changed = await server.request(`${ADDONS}/${id}`, {
        method: "PUT",
        body: {
          provider: "webhook",
          enabled: false,
          parameters: { url: "*****", authorization: "*****", contentType: "text/plain" },
          events: ["feature-created", "feature-archived"],
          environments: null,
        },
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({
        id,
        enabled: false,
        description: "ping the build",
        projects: ["default"],
        environments: [],
        events: ["feature-created", "feature-archived"],
        parameters: { url: "*****", authorization: "*****", contentType: "text/plain" },
      });
      // The mask kept the stored secrets.
      expect((await row(id))?.parameters).toEqual({
        url: PUBLIC_URL,
        authorization: "Bearer s3cret",
        contentType: "text/plain",
      });

      const emptied = await server.request(`${ADDONS}/${id}`, {
        method: "PUT",
        body: {
          provider: "webhook",
          enabled: true,
          parameters: { url: "*****" },
          events: null,
          description: null,
          projects: null,
        },
      });
      expect(emptied.status).toBe(200);
      expect(emptied.body).toMatchObject({
        description: "",
        projects: [],
        events: [],
        parameters: { url: "*****" },
      });
      // A sensitive parameter left out is gone; one sent anew replaces the stored value.
      expect((await row(id))?.parameters).toEqual({ url: PUBLIC_URL });
      const replaced = await server.request(`${ADDONS}/${id}`, {
        method: "PUT",
        body: {
          provider: "webhook",
          enabled: true,
          parameters: { url: "http://93.184.215.15/" },
          events: [],
        },
      });
      expect(replaced.status).toBe(200);
      expect((await row(id))?.parameters).toEqual({ url: "http://93.184.215.15/" });

      const updated = (await eventsOfType("addon-config-updated")).filter(
        (event) => (event.data as { id: number }).id === id,
      );
      expect(updated).toHaveLength(3);
      expect(updated[0]?.pre_data).toMatchObject({ enabled: true, environments: [] });
      expect(updated[0]?.data).toMatchObject({ enabled: false });
      expect(JSON.stringify(updated)).not.toContain("s3cret");
      expect(updated[0]?.data).not.toHaveProperty("parameters");
    });

    it("refuses, with the database unchanged: 400, 401, 403, 404, 413, 415", async () => {
      const { id } = await create();
      const viewer = await sessionOf(server, "Viewer");
      const before = await row(id);
      const eventsBefore = (await server.db.selectFrom("events").select("id").execute()).length;
      const put = (
        body: unknown,
        options: { token?: string | null; headers?: Record<string, string> } = {},
      ) => server.request(`${ADDONS}/${id}`, { method: "PUT", body, ...options });
      const valid = webhook({ description: "changed" });

      const refusals: [string, Awaited<ReturnType<typeof put>>, number, string][] = [
        ["unknown provider", await put({ ...valid, provider: "pager" }), 400, "ValidationError"],
        ["missing required parameter", await put({ ...valid, parameters: {} }), 400, "ValidationError"],
        ["enabled missing", await put({ ...valid, enabled: undefined }), 400, "ValidationError"],
        [
          "events not a list",
          await put({ ...valid, events: { type: "feature-created" } }),
          400,
          "ValidationError",
        ],
        [
          "a parameter that is an object",
          await put({ ...valid, parameters: { url: PUBLIC_URL, contentType: { json: true } } }),
          400,
          "ValidationError",
        ],
        ["unknown event type", await put({ ...valid, events: ["flag-made"] }), 400, "ValidationError"],
        [
          "custom headers not a JSON object",
          await put({ ...valid, parameters: { url: PUBLIC_URL, customHeaders: "[1]" } }),
          400,
          "ValidationError",
        ],
        [
          "a body template that does not parse",
          await put({ ...valid, parameters: { url: PUBLIC_URL, bodyTemplate: "{{#event}}" } }),
          400,
          "ValidationError",
        ],
        [
          "not http",
          await put({ ...valid, parameters: { url: "file:///etc/passwd" } }),
          400,
          "ValidationError",
        ],
        [
          "private address",
          await put({ ...valid, parameters: { url: "http://127.0.0.1:9/" } }),
          400,
          "ValidationError",
        ],
        ["no credentials", await put(valid, { token: null }), 401, "AuthenticationRequired"],
        ["a viewer", await put(valid, { token: null, headers: { cookie: viewer } }), 403, "NoAccessError"],
        ["too large", await put({ ...valid, description: "x".repeat(200 * 1024) }), 413, "ContentTooLarge"],
        [
          "not JSON",
          await put("provider=webhook", { headers: { "content-type": "text/plain" } }),
          415,
          "ContentTypeerror",
        ],
      ];
      for (const [what, reply, status, name] of refusals) {
        expect(reply.status, what).toBe(status);
        expect(reply.body.name, what).toBe(name);
        expect(typeof reply.body.id, what).toBe("string");
      }
      const missing = await server.request(`${ADDONS}/999999`, { method: "PUT", body: valid });
      expect(missing.status).toBe(404);
      expect(missing.body.name).toBe("NotFoundError");
      expect(await row(id)).toEqual(before);
      expect((await server.db.selectFrom("events").select("id").execute()).length).toBe(eventsBefore);
    });

    it("names the private address and the settings that would allow it", async () => {
      const { id } = await create();
      const reply = await server.request(`${ADDONS}/${id}`, {
        method: "PUT",
        body: webhook({ parameters: { url: "http://[::1]:8080/" } }),
      });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toContain("::1");
      expect(reply.body.message).toContain("UNLEASH_ALLOW_PRIVATE_URL_IN_INTEGRATION");
      for (const url of [
        "http://10.1.2.3/",
        "http://169.254.169.254/latest",
        "http://[fe80::1]/",
        "http://0.0.0.0/",
      ]) {
        const refused = await server.request(ADDONS, {
          method: "POST",
          body: webhook({ parameters: { url } }),
        });
        expect(refused.status, url).toBe(400);
      }
    });
  });

  it("reads one addon, and 404 for one that is not there", async () => {
    const { id } = await create();
    expect((await server.request(`${ADDONS}/${id}`)).body).toMatchObject({ id, provider: "webhook" });
    expect((await server.request(`${ADDONS}/999999`)).status).toBe(404);
    expect((await server.request(`${ADDONS}/999999/events`)).status).toBe(404);
  });

  it("deletes an addon with its event; deleting again is fine", async () => {
    const { id } = await create();
    expect((await server.request(`${ADDONS}/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await server.request(`${ADDONS}/${id}`)).status).toBe(404);
    expect(await row(id)).toBeUndefined();
    const [deleted] = (await eventsOfType("addon-config-deleted")).slice(-1);
    expect(deleted?.pre_data).toMatchObject({ id, provider: "webhook" });
    const count = (await eventsOfType("addon-config-deleted")).length;
    expect((await server.request(`${ADDONS}/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await eventsOfType("addon-config-deleted")).length).toBe(count);
  });

  it("lets Editors manage addons and Viewers only read them", async () => {
    const editor = { token: null, headers: { cookie: await sessionOf(server, "Editor") } };
    const viewer = { token: null, headers: { cookie: await sessionOf(server, "Viewer") } };
    const made = await server.request(ADDONS, { method: "POST", body: webhook(), ...editor });
    expect(made.status).toBe(201);
    expect((await server.request(ADDONS, { method: "POST", body: webhook(), ...viewer })).status).toBe(403);
    expect((await server.request(`${ADDONS}/${made.body.id}`, { method: "DELETE", ...viewer })).status).toBe(
      403,
    );
    expect((await server.request(`${ADDONS}/${made.body.id}`, viewer)).status).toBe(200);
    expect((await server.request(`${ADDONS}/${made.body.id}/events`, viewer)).status).toBe(200);
  });
});

describe("addon settings from the environment", () => {
  it("reads the allow-private switch and the allow list, and names a variable it cannot read", () => {
    const config = loadConfig({
      UNLEASH_ALLOW_PRIVATE_URL_IN_INTEGRATION: "true",
      UNLEASH_ALLOW_LIST_INTEGRATION: "hooks.internal, Example.COM",
    });
    expect(config.integrations).toMatchObject({
      allowPrivateUrl: true,
      allowList: ["hooks.internal", "example.com"],
    });
    expect(loadConfig({}).integrations.allowPrivateUrl).toBe(false);
    expect(() => loadConfig({ UNLEASH_ALLOW_PRIVATE_URL_IN_INTEGRATION: "yes" })).toThrow(
      /UNLEASH_ALLOW_PRIVATE_URL_IN_INTEGRATION must be true or false/,
    );
    expect(() => loadConfig({ INTEGRATION_GIVE_UP_MS: "soon" })).toThrow(/INTEGRATION_GIVE_UP_MS/);
  });
});
