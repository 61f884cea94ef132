import { OFREPProvider } from "@openfeature/ofrep-provider";
import { type Client, OpenFeature } from "@openfeature/server-sdk";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { SignalboxProxy } from "../src/index.js";
import { CLIENT_KEY, flagDocument, startProxy } from "./support/fixtures.js";
import { FakeUpstream } from "./support/upstream.js";

// OpenFeature's remote evaluation protocol on the proxy, with its client keys, through the
// published OpenFeature server SDK and its generic OFREP provider.
describe("OFREP on the proxy", () => {
  let upstream: FakeUpstream;
  let proxy: SignalboxProxy;
  let url: string;
  let client: Client;
  beforeAll(async () => {
    const document = flagDocument();
    document.features.push({
      name: "limit",
      enabled: true,
      strategies: [{ name: "default" }],
      variants: [
        { name: "ten", weight: 1000, stickiness: "default", payload: { type: "number", value: "10.5" } },
      ],
    });
    upstream = await FakeUpstream.start(document);
    proxy = await startProxy(upstream);
    url = await proxy.listen({ port: 0, host: "127.0.0.1" });
    await OpenFeature.setProviderAndWait(
      "proxy",
      new OFREPProvider({ baseUrl: url, headers: [["Authorization", `Bearer ${CLIENT_KEY}`]] }),
    );
    client = OpenFeature.getClient("proxy");
  });
  afterAll(async () => {
    await OpenFeature.clearProviders();
    await proxy.close();
    await upstream.close();
  });

  test("answers booleans, strings and objects with the reasons the flag decided by", async () => {
    expect(await client.getBooleanDetails("simple", false, { targetingKey: "7" })).toMatchObject({
      value: true,
      reason: "STATIC",
    });
    expect(await client.getBooleanDetails("off", true, { targetingKey: "7" })).toMatchObject({
      value: false,
      reason: "DISABLED",
    });
    expect(await client.getBooleanDetails("user-42", false, { targetingKey: "42" })).toMatchObject({
      value: true,
      reason: "TARGETING_MATCH",
    });
    expect(await client.getBooleanDetails("user-42", true, { targetingKey: "7" })).toMatchObject({
      value: false,
      reason: "DEFAULT",
    });
    expect(await client.getStringDetails("greeting", "", { targetingKey: "7" })).toMatchObject({
      value: "Hello!",
      variant: "hello",
    });
    expect(await client.getObjectValue("colors", {}, { targetingKey: "7" })).toEqual({ hex: "#00f" });
    expect(await client.getNumberDetails("limit", 0, { targetingKey: "7" })).toMatchObject({
      value: 10.5,
      variant: "ten",
      reason: "STATIC",
    });
  });

  test("names an unknown flag, a type mismatch and a missing targeting key", async () => {
    expect(await client.getBooleanDetails("nope", false, { targetingKey: "7" })).toMatchObject({
      errorCode: "FLAG_NOT_FOUND",
    });
    expect(await client.getNumberDetails("simple", 1, { targetingKey: "7" })).toMatchObject({
      value: 1,
      errorCode: "TYPE_MISMATCH",
    });
    expect(await client.getBooleanDetails("half-of-visitors-twin", false, {})).toMatchObject({
      errorCode: "TARGETING_KEY_MISSING",
    });
  });

  test("answers the bulk call with an ETag and 304, to X-API-Key too, and refuses other keys", async () => {
    const ask = (headers: Record<string, string>) =>
      fetch(`${url}/ofrep/v1/evaluate/flags`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ context: { targetingKey: "42", region: "Africa" } }),
      });
    const first = await ask({ "x-api-key": CLIENT_KEY });
    expect(first.status).toBe(200);
    const { flags } = (await first.json()) as { flags: { key: string; value?: unknown }[] };
    expect(flags.find((flag) => flag.key === "africa")).toMatchObject({
      value: true,
      reason: "TARGETING_MATCH",
    });
    expect(flags.map((flag) => flag.key)).toEqual([
      ...flagDocument().features.map((feature) => feature.name),
      "limit",
    ]);
    const etag = first.headers.get("etag")!;
    expect((await ask({ authorization: CLIENT_KEY, "if-none-match": etag })).status).toBe(304);
    expect((await ask({ "x-api-key": "wrong" })).status).toBe(401);
    expect((await ask({ authorization: "Bearer wrong" })).status).toBe(401);
  });

  test("the bulk answer names a change stream that tells of each new configuration", async () => {
    const bulk = await fetch(`${url}/ofrep/v1/evaluate/flags`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${CLIENT_KEY}` },
      body: JSON.stringify({ context: { targetingKey: "7" } }),
    });
    const { eventStreams } = (await bulk.json()) as {
      eventStreams: { type: string; endpoint: { requestUri: string }; inactivityDelaySec: number }[];
    };
    expect(eventStreams).toEqual([
      {
        type: "sse",
        endpoint: { requestUri: `/ofrep/v1/events?key=${CLIENT_KEY}` },
        inactivityDelaySec: 120,
      },
    ]);
    expect((await fetch(`${url}/ofrep/v1/events?key=wrong`)).status).toBe(401);

    // As a browser's EventSource connects: no headers, the key in the URL.
    const controller = new AbortController();
    const stream = await fetch(`${url}${eventStreams[0]!.endpoint.requestUri}`, {
      signal: controller.signal,
      headers: { origin: "https://app.example" },
    });
    expect(stream.status).toBe(200);
    // Read from a page of another origin.
    expect(stream.headers.get("access-control-allow-origin")).toBe("*");
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = "";
    upstream.setDocument({ ...flagDocument(), features: flagDocument().features.slice(1) });
    while (!received.includes("refetchEvaluation")) received += (await reader.read()).value ?? "";
    controller.abort();
    const data = received.split("\n").find((line) => line.startsWith("data: "))!;
    expect(JSON.parse(data.slice(6))).toMatchObject({ type: "refetchEvaluation", etag: expect.any(String) });
    expect(received).toMatch(/event: message/);
  });

  test("a body that is not JSON is a PARSE_ERROR", async () => {
    const response = await fetch(`${url}/ofrep/v1/evaluate/flags/simple`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: CLIENT_KEY },
      body: "{oops",
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ key: "simple", errorCode: "PARSE_ERROR" });
  });
});
