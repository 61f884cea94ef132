import { OFREPProvider } from "@openfeature/ofrep-provider";
import { type Client, OpenFeature } from "@openfeature/server-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRONTEND_TOKEN, startTestServer, type TestServer } from "./support/server.js";

// OpenFeature's remote evaluation protocol on the service, through the published
// OpenFeature server SDK and its generic OFREP provider, as an application in any language
// would use it: no Unleash SDK involved.

const development = (flag: string) => `/api/admin/projects/default/features/${flag}/environments/development`;
const payloadVariant = (name: string, type: string, value: string, weight = 1000) => ({
  name,
  weight,
  weightType: "variable",
  stickiness: "default",
  payload: { type, value },
});

async function flag(server: TestServer, name: string, strategy?: Record<string, unknown>, on = true) {
  expect(
    (await server.request("/api/admin/projects/default/features", { method: "POST", body: { name } })).status,
  ).toBe(200);
  if (strategy) {
    const added = await server.request(`${development(name)}/strategies`, { method: "POST", body: strategy });
    expect(added.status).toBe(200);
  }
  if (on) expect((await server.request(`${development(name)}/on`, { method: "POST" })).status).toBe(200);
}

/** An OpenFeature client on its own domain, evaluating through OFREP with `token`. */
async function openFeature(server: TestServer, domain: string, token: string): Promise<Client> {
  await OpenFeature.setProviderAndWait(
    domain,
    new OFREPProvider({ baseUrl: server.url, headers: [["Authorization", `Bearer ${token}`]] }),
  );
  return OpenFeature.getClient(domain);
}

describe("OFREP on the service, with a frontend token", () => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    server = await startTestServer();
    await flag(server, "static-on", { name: "default" });
    await flag(server, "switched-off", { name: "default" }, false);
    await flag(server, "pro-only", {
      name: "default",
      constraints: [{ contextName: "plan", operator: "IN", values: ["pro"] }],
    });
    await flag(server, "half", {
      name: "flexibleRollout",
      parameters: { rollout: "50", stickiness: "default", groupId: "half" },
    });
    await flag(server, "greeting", {
      name: "default",
      variants: [payloadVariant("hello", "string", "Hello!")],
    });
    await flag(server, "limit", { name: "default", variants: [payloadVariant("ten", "number", "10.5")] });
    await flag(server, "theme", {
      name: "default",
      variants: [payloadVariant("dark", "json", '{"background":"#000","contrast":3}')],
    });
    await flag(server, "experiment", {
      name: "default",
      variants: [payloadVariant("a", "string", "A", 500), payloadVariant("b", "string", "B", 500)],
    });
    client = await openFeature(server, "service", FRONTEND_TOKEN);
  });
  afterAll(async () => {
    await OpenFeature.clearProviders();
    await server?.close();
  });

  it("answers booleans for flags without variants, with the reason the flag decided by", async () => {
    expect(await client.getBooleanDetails("static-on", false, { targetingKey: "u1" })).toMatchObject({
      value: true,
      reason: "STATIC",
      flagMetadata: { project: "default", type: "release", enabled: true },
    });
    expect(await client.getBooleanDetails("switched-off", true, { targetingKey: "u1" })).toMatchObject({
      value: false,
      reason: "DISABLED",
    });
    expect(
      await client.getBooleanDetails("pro-only", false, { targetingKey: "u1", plan: "pro" }),
    ).toMatchObject({
      value: true,
      reason: "TARGETING_MATCH",
    });
    expect(
      await client.getBooleanDetails("pro-only", true, { targetingKey: "u1", plan: "free" }),
    ).toMatchObject({
      value: false,
      reason: "DEFAULT",
    });
    // A 50% rollout by user: whoever it lets in was let in by the split.
    const users = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.getBooleanDetails("half", false, { targetingKey: `user-${i}` }),
      ),
    );
    expect(users.filter((user) => user.value).every((user) => user.reason === "SPLIT")).toBe(true);
    expect(users.some((user) => user.value) && users.some((user) => !user.value)).toBe(true);
  });

  it("answers a variant's payload as the type it declares: string, number, object", async () => {
    expect(await client.getStringDetails("greeting", "none", { targetingKey: "u1" })).toMatchObject({
      value: "Hello!",
      variant: "hello",
      reason: "STATIC",
    });
    expect(await client.getNumberValue("limit", 0, { targetingKey: "u1" })).toBe(10.5);
    expect(await client.getObjectValue("theme", {}, { targetingKey: "u1" })).toEqual({
      background: "#000",
      contrast: 3,
    });
    const split = await client.getStringDetails("experiment", "none", { targetingKey: "u1" });
    expect(["A", "B"]).toContain(split.value);
    expect(split.reason).toBe("SPLIT");
  });

  it("names what went wrong: an unknown flag, a type mismatch, a targeting key the flag needs", async () => {
    expect(await client.getBooleanDetails("no-such-flag", true, { targetingKey: "u1" })).toMatchObject({
      value: true,
      errorCode: "FLAG_NOT_FOUND",
      reason: "ERROR",
    });
    expect(await client.getStringDetails("static-on", "fallback", { targetingKey: "u1" })).toMatchObject({
      value: "fallback",
      errorCode: "TYPE_MISMATCH",
    });
    expect(await client.getBooleanDetails("half", false, {})).toMatchObject({
      value: false,
      errorCode: "TARGETING_KEY_MISSING",
    });
    // A flag that reads no user needs none.
    expect(await client.getBooleanValue("static-on", false, {})).toBe(true);
  });

  it("answers the bulk call with every flag, an ETag and 304 for the same answer, and takes X-API-Key", async () => {
    const ask = (headers: Record<string, string>) =>
      server.request("/ofrep/v1/evaluate/flags", {
        method: "POST",
        token: null,
        headers,
        body: { context: { targetingKey: "u1", plan: "pro" } },
      });
    const first = await ask({ "x-api-key": FRONTEND_TOKEN });
    expect(first.status).toBe(200);
    const keys = first.body.flags.map((flag: { key: string }) => flag.key);
    expect(keys).toEqual(expect.arrayContaining(["static-on", "pro-only", "greeting", "theme"]));
    expect(first.body.flags.find((flag: { key: string }) => flag.key === "pro-only")).toMatchObject({
      value: true,
      reason: "TARGETING_MATCH",
    });
    const etag = first.headers.get("etag")!;
    expect((await ask({ "x-api-key": FRONTEND_TOKEN, "if-none-match": etag })).status).toBe(304);
    await server.request(`${development("static-on")}/off`, { method: "POST" });
    expect((await ask({ authorization: `Bearer ${FRONTEND_TOKEN}`, "if-none-match": etag })).status).toBe(
      200,
    );
  });

  it("names a change stream that tells of each change the token sees, and ends when the token is deleted", async () => {
    const created = await server.request("/api/admin/api-tokens", {
      method: "POST",
      body: { tokenName: "ofrep-stream", type: "frontend", environment: "development", projects: ["*"] },
    });
    const secret: string = created.body.secret;
    const bulk = await server.request("/ofrep/v1/evaluate/flags", {
      method: "POST",
      token: secret,
      body: { context: { targetingKey: "u1" } },
    });
    const [stream] = bulk.body.eventStreams;
    expect(stream).toEqual({
      type: "sse",
      endpoint: { requestUri: `/ofrep/v1/events?key=${encodeURIComponent(secret)}` },
      inactivityDelaySec: 120,
    });
    // As a browser's EventSource connects from a page elsewhere: the token in the URL, no headers.
    const events = await fetch(`${server.url}${stream.endpoint.requestUri}`, {
      headers: { origin: "https://shop.example" },
    });
    expect(events.status).toBe(200);
    expect(events.headers.get("access-control-allow-origin")).toBe("*");
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = "";
    await server.request(`${development("greeting")}/off`, { method: "POST" });
    while (!received.includes("refetchEvaluation")) received += (await reader.read()).value ?? "";
    const data = received.split("\n").find((line) => line.startsWith("data: "))!;
    expect(JSON.parse(data.slice(6))).toMatchObject({ type: "refetchEvaluation", etag: expect.any(String) });
    await server.request(`${development("greeting")}/on`, { method: "POST" });

    await server.request(`/api/admin/api-tokens/${encodeURIComponent(secret)}`, { method: "DELETE" });
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
    const refused = await fetch(`${server.url}${stream.endpoint.requestUri}`);
    expect(refused.status).toBe(401);
    const clientKey = await fetch(
      `${server.url}/ofrep/v1/events?key=${encodeURIComponent("*:development.test-client-secret")}`,
    );
    expect(clientKey.status).toBe(403);
  });

  it("refuses a malformed body and an invalid context with OFREP's error codes", async () => {
    const single = (body: string) =>
      server.request("/ofrep/v1/evaluate/flags/greeting", {
        method: "POST",
        token: FRONTEND_TOKEN,
        body,
        headers: { "content-type": "application/json" },
      });
    expect(await single("{not json")).toMatchObject({ status: 400, body: { errorCode: "PARSE_ERROR" } });
    expect(await single('{"context": {"targetingKey": "u1", "plan": {"nested": true}}}')).toMatchObject({
      status: 400,
      body: { key: "greeting", errorCode: "INVALID_CONTEXT" },
    });
  });

  it("refuses a client token and, once deleted, the frontend token it answered", async () => {
    const created = await server.request("/api/admin/api-tokens", {
      method: "POST",
      body: { tokenName: "ofrep-revoked", type: "frontend", environment: "development", projects: ["*"] },
    });
    const revoked = await openFeature(server, "revoked", created.body.secret);
    expect(await revoked.getBooleanValue("pro-only", false, { targetingKey: "u1", plan: "pro" })).toBe(true);
    await server.request(`/api/admin/api-tokens/${created.body.secret}`, { method: "DELETE" });
    expect(
      await revoked.getBooleanDetails("pro-only", false, { targetingKey: "u1", plan: "pro" }),
    ).toMatchObject({
      value: false,
      reason: "ERROR",
    });
    const wrongKind = await server.request("/ofrep/v1/evaluate/flags/pro-only", {
      method: "POST",
      body: { context: { targetingKey: "u1" } },
      token: "*:development.test-client-secret",
    });
    expect(wrongKind.status).toBe(403);
  });
});
