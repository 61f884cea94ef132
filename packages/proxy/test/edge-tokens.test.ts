import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { TokenValidator } from "../src/edge/tokens.js";
import { Outbound } from "../src/outbound.js";

// The flag service's /edge/validate, as far as the validator uses it: it knows some
// secrets, can be slowed down or switched off, and counts the calls it gets.
const service = {
  known: new Map<string, { type: string; environment: string; projects: string[] }>(),
  calls: 0,
  delayMs: 0,
  down: false,
};
let server: Server;
let url: string;
const outbound = new Outbound({
  rejectUnauthorized: true,
  httpProxy: undefined,
  httpsProxy: undefined,
  noProxy: undefined,
});

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      service.calls++;
      setTimeout(() => {
        if (service.down) return response.writeHead(502).end();
        const tokens = (JSON.parse(body) as { tokens: string[] }).tokens
          .filter((token) => service.known.has(token))
          .map((token) => ({ token, ...service.known.get(token) }));
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ tokens }));
      }, service.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/api`;
});
afterAll(async () => {
  await outbound.close();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  service.known.clear();
  service.known.set("client", { type: "client", environment: "development", projects: ["b", "a"] });
  service.known.set("backend", { type: "backend", environment: "production", projects: ["*"] });
  service.known.set("frontend", { type: "frontend", environment: "development", projects: ["*"] });
  service.known.set("admin", { type: "admin", environment: "*", projects: ["*"] });
  service.calls = 0;
  service.delayMs = 0;
  service.down = false;
});

function validator(clock = { now: 0 }) {
  return new TokenValidator(
    { serviceUrl: url, headers: {}, revalidateMs: 1000, refusedMs: 100 },
    outbound,
    () => clock.now,
  );
}

describe("tokens checked with the flag service", () => {
  test("knows client (and backend), frontend tokens with their scope, and refuses admin and unknown ones", async () => {
    const check = validator();
    expect(await check.validate("client")).toEqual({
      outcome: "valid",
      token: { secret: "client", kind: "client", environment: "development", projects: ["a", "b"] },
    });
    expect(await check.validate("backend")).toMatchObject({ outcome: "valid", token: { kind: "client" } });
    expect(await check.validate("frontend")).toMatchObject({ outcome: "valid", token: { kind: "frontend" } });
    expect(await check.validate("admin")).toEqual({ outcome: "invalid" });
    expect(await check.validate("nobody")).toEqual({ outcome: "invalid" });
  });

  test("asks once per secret while it is fresh, and a refused one once per refusal period", async () => {
    const clock = { now: 0 };
    const check = validator(clock);
    await Promise.all([check.validate("client"), check.validate("client")]);
    await check.validate("client");
    expect(service.calls).toBe(1);
    for (let i = 0; i < 5; i++) await check.validate("nobody");
    expect(service.calls).toBe(2);
    clock.now = 150;
    await check.validate("nobody");
    expect(service.calls).toBe(3);
  });

  test("a revoked secret is refused once its trust runs out and the service has been asked again", async () => {
    const clock = { now: 0 };
    const check = validator(clock);
    await check.validate("client");
    service.known.delete("client");
    clock.now = 1500;
    // Served from memory while the service is asked again in the background.
    expect((await check.validate("client")).outcome).toBe("valid");
    await expect.poll(async () => (await check.validate("client")).outcome).toBe("invalid");
  });

  test("a service that cannot answer keeps known secrets valid, and says so of new ones", async () => {
    const clock = { now: 0 };
    const check = validator(clock);
    await check.validate("client");
    service.down = true;
    clock.now = 1500;
    expect((await check.revalidate("client")).outcome).toBe("valid");
    expect(await check.validate("frontend")).toMatchObject({ outcome: "unknown" });
  });

  test("a flood of unknown secrets costs the service a bounded number of calls at once", async () => {
    const check = validator();
    service.delayMs = 200;
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => check.validate(`flood-${i}`)));
    expect(service.calls).toBeLessThanOrEqual(64);
    expect(answers.filter((answer) => answer.outcome === "unknown").length).toBeGreaterThanOrEqual(136);
    // The known valid ones are not pushed out by it.
    service.delayMs = 0;
    await check.validate("client");
    const before = service.calls;
    await check.validate("client");
    expect(service.calls).toBe(before);
  });
});
