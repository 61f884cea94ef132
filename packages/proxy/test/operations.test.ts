import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { SignalboxProxy } from "../src/index.js";
import { CLIENT_KEY, flagDocument, startProxy } from "./support/fixtures.js";
import { FakeUpstream } from "./support/upstream.js";

const SERVER_TOKEN = "server-token";

let upstream: FakeUpstream;
let proxy: SignalboxProxy;
beforeAll(async () => {
  upstream = await FakeUpstream.start(flagDocument());
  proxy = await startProxy(upstream, { enableOAS: true, expServerSideSdkConfig: { tokens: [SERVER_TOKEN] } });
});
afterAll(async () => {
  await proxy.close();
  await upstream.close();
});

describe("GET /proxy/health", () => {
  test("answers ok as text/html, without a key", async () => {
    const response = await proxy.app.inject({ method: "GET", url: "/proxy/health" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(response.body).toBe("ok");
  });
});

describe("GET /proxy/internal-backstage/prometheus", () => {
  test("exposes the three metrics of the spec and process metrics, without a key", async () => {
    const response = await proxy.app.inject({ method: "GET", url: "/proxy/internal-backstage/prometheus" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/plain/);
    expect(response.body).toMatch(/^service_proxy_up 1$/m);
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(response.body)?.[1]);
    expect(gauge("last_metrics_update_epoch_timestamp_ms")).toBeGreaterThan(Date.now() - 60_000);
    expect(gauge("last_metrics_fetch_epoch_timestamp_ms")).toBeGreaterThan(Date.now() - 60_000);
    expect(response.body).toContain("process_cpu_user_seconds_total");
    expect(response.body).toContain("nodejs_heap_size_used_bytes");
  });
});

describe("OpenAPI", () => {
  test("openapi.json describes the routes from their schemas", async () => {
    const response = await proxy.app.inject({ method: "GET", url: "/docs/openapi.json" });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        "/proxy",
        "/proxy/client/metrics",
        "/proxy/client/register",
        "/proxy/client/features",
        "/proxy/health",
      ]),
    );
    // /proxy/all is disabled on this proxy, so it is not advertised.
    expect(document.paths["/proxy/all"]).toBeUndefined();
    const get = document.paths["/proxy"].get;
    expect(get.parameters.map((parameter: { name: string }) => parameter.name)).toContain("userId");
    expect(get.parameters.find((parameter: { name: string }) => parameter.name === "properties").style).toBe(
      "deepObject",
    );
    expect(get.responses["200"].content["application/json"].schema.properties.toggles.type).toBe("array");
    expect(get.security).toEqual([{ clientKey: [] }]);
    const body = document.paths["/proxy"].post.requestBody.content["application/json"].schema;
    expect(body.properties.toggles.type).toBe("array");
    expect(document.components.securitySchemes.clientKey).toMatchObject({
      in: "header",
      name: "authorization",
    });
  });

  test("/docs is a page that reads the document, and /docs/openapi leads there", async () => {
    const former = await proxy.app.inject({ method: "GET", url: "/docs/openapi" });
    expect(former.statusCode).toBe(302);
    expect(former.headers.location).toBe("/docs/");
    const page = await proxy.app.inject({ method: "GET", url: "/docs/" });
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.body).toContain("swagger-initializer.js");
    expect(page.body).toContain("<title>Signalbox proxy API reference</title>");
    expect(page.body).not.toMatch(/favicon-(16x16|32x32)\.png/);
    const script = await proxy.app.inject({ method: "GET", url: "/docs/static/swagger-initializer.js" });
    expect(script.body).toContain("resolveUrl('./json')");
    // The top bar's logo, set by the start-up script as a data URL: Signalbox's, not the stock one.
    const logo = /data:image\/svg\+xml;base64,([\w+/=]+)/.exec(script.body)?.[1] ?? "";
    expect(Buffer.from(logo, "base64").toString()).toContain(">Signalbox</text>");
    const read = await proxy.app.inject({ method: "GET", url: "/docs/json" });
    const served = await proxy.app.inject({ method: "GET", url: "/docs/openapi.json" });
    expect(read.json()).toEqual(served.json());
  });

  test("both are absent without enableOAS", async () => {
    const plain = await startProxy(upstream);
    try {
      for (const url of ["/docs/openapi.json", "/docs/openapi", "/docs/", "/docs/json"]) {
        expect((await plain.app.inject({ method: "GET", url })).statusCode).toBe(404);
      }
    } finally {
      await plain.close();
    }
  });
});

describe("GET /proxy/client/features", () => {
  test("gives server-side SDK tokens the configuration, with caching headers", async () => {
    const response = await proxy.app.inject({
      method: "GET",
      url: "/proxy/client/features",
      headers: { authorization: SERVER_TOKEN },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.version).toBe(2);
    expect(body.features.map((feature: { name: string }) => feature.name)).toEqual(
      flagDocument().features.map((feature) => feature.name),
    );
    expect(body.features[2].variants[0].payload).toEqual({ type: "json", value: '{"hex":"#00f"}' });
    expect(response.headers["cache-control"]).toBe("public, max-age=2");
    const again = await proxy.app.inject({
      method: "GET",
      url: "/proxy/client/features",
      headers: { authorization: SERVER_TOKEN, "if-none-match": response.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
  });

  test("refuses client keys and missing tokens", async () => {
    for (const headers of [{ authorization: CLIENT_KEY }, {}]) {
      const response = await proxy.app.inject({ method: "GET", url: "/proxy/client/features", headers });
      expect(response.statusCode).toBe(401);
    }
  });
});

describe("client metrics and registrations", () => {
  const metrics = {
    appName: "web",
    instanceId: "browser",
    bucket: {
      start: new Date().toISOString(),
      stop: new Date().toISOString(),
      toggles: { simple: { yes: 1, no: 0, variants: {} } },
    },
  };

  test.each(["/proxy/client/metrics", "/proxy/all/client/metrics"])(
    "%s accepts client keys and server tokens, not strangers",
    async (url) => {
      for (const [authorization, status] of [
        [CLIENT_KEY, 200],
        [SERVER_TOKEN, 200],
        ["stranger", 401],
      ] as const) {
        const response = await proxy.app.inject({
          method: "POST",
          url,
          headers: { authorization },
          payload: metrics,
        });
        expect(response.statusCode).toBe(status);
      }
    },
  );

  test("a metrics body of the wrong shape gets 400 as JSON", async () => {
    for (const payload of [
      { some: "blob" },
      { ...metrics, bucket: { ...metrics.bucket, toggles: { a: { yes: -1, no: 0 } } } },
    ]) {
      const response = await proxy.app.inject({
        method: "POST",
        url: "/proxy/client/metrics",
        headers: { authorization: CLIENT_KEY },
        payload,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBeTypeOf("string");
    }
  });

  test("registrations are validated and accepted", async () => {
    const valid = {
      appName: "api",
      instanceId: "i-1",
      interval: 1000,
      started: new Date().toISOString(),
      strategies: ["default"],
    };
    const ok = await proxy.app.inject({
      method: "POST",
      url: "/proxy/client/register",
      headers: { authorization: SERVER_TOKEN },
      payload: valid,
    });
    expect(ok.statusCode).toBe(200);
    const bad = await proxy.app.inject({
      method: "POST",
      url: "/proxy/client/register",
      headers: { authorization: SERVER_TOKEN },
      payload: { appName: "api" },
    });
    expect(bad.statusCode).toBe(400);
  });
});
