import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { system } from "../src/access/actor.js";
import { databaseKinds } from "./support/database.js";
import {
  ADMIN_TOKEN,
  CLIENT_TOKEN,
  FRONTEND_TOKEN,
  startTestServer,
  type TestServer,
} from "./support/server.js";

describe.each(databaseKinds)("API tokens (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it("creates a client token whose secret is shown once and works at once", async () => {
    const created = await server.request("/api/admin/api-tokens", {
      method: "POST",
      body: { tokenName: "my-app", type: "backend", environment: "production", projects: ["default"] },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^default:production\.[0-9a-f]{56}$/);
    expect(created.headers.get("location")).toBe(`api-tokens/${created.body.id}`);

    const listed = await server.request("/api/admin/api-tokens");
    const mine = listed.body.tokens.find((token: { id: number }) => token.id === created.body.id);
    expect(mine).toMatchObject({ tokenName: "my-app", type: "client", environment: "production" });
    expect(mine.secret).toBeUndefined();
    // The scope only: nothing of the random part, stored or shown.
    expect(mine.secretPrefix).toBe("default:production.");
    expect(JSON.stringify(await server.db.selectFrom("api_tokens").selectAll().execute())).not.toContain(
      created.body.secret.slice("default:production.".length, "default:production.".length + 6),
    );
    expect(mine.seenAt).toBeNull();
    expect((await server.request("/api/client/features", { token: created.body.secret })).status).toBe(200);
    await server.services.tokens.flushSeen();
    const used = (await server.request("/api/admin/api-tokens")).body.tokens.find(
      (token: { id: number }) => token.id === created.body.id,
    );
    expect(used.seenAt).toEqual(expect.any(String));

    const stored = await server.db.selectFrom("api_tokens").select("secret_hash").execute();
    expect(stored.map((row) => row.secret_hash)).not.toContain(created.body.secret);

    const events = await server.request("/api/admin/events/search", {
      method: "POST",
      body: { type: "api-token-created" },
    });
    expect(events.body.events[0].data.tokenName).toBe("my-app");
    expect(JSON.stringify(events.body)).not.toContain(created.body.secret);
  });

  it("serves a token of a project named like the personal tokens' prefix, user:", async () => {
    expect(
      (await server.request("/api/admin/projects", { method: "POST", body: { id: "user", name: "User" } }))
        .status,
    ).toBe(201);
    const created = await server.request("/api/admin/api-tokens", {
      method: "POST",
      body: { tokenName: "user-app", type: "backend", environment: "development", projects: ["user"] },
    });
    expect(created.body.secret).toMatch(/^user:development\./);
    expect((await server.request("/api/client/features", { token: created.body.secret })).status).toBe(200);
  });

  it("refuses bad scopes and leaves the token table as it was", async () => {
    const before = await server.request("/api/admin/api-tokens");
    for (const body of [
      { tokenName: "x", type: "client", environment: "nowhere" },
      { tokenName: "x", type: "client", environment: "development", projects: ["missing"] },
      { tokenName: "x", type: "admin", environment: "development" },
      { tokenName: "x", type: "superuser" },
      { type: "client" },
    ]) {
      const reply = await server.request("/api/admin/api-tokens", { method: "POST", body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body).toMatchObject({ name: "ValidationError", id: expect.any(String) });
      expect(reply.body.details.length).toBeGreaterThan(0);
    }
    expect((await server.request("/api/admin/api-tokens")).body).toEqual(before.body);
  });

  it("answers 401 without a token, 401 for an unknown one and 403 for the wrong type", async () => {
    const none = await server.request("/api/admin/api-tokens", { token: null });
    expect(none.status).toBe(401);
    expect(none.body.name).toBe("AuthenticationRequired");
    expect((await server.request("/api/admin/api-tokens", { token: "*:*.nope" })).status).toBe(401);
    const wrong = await server.request("/api/admin/api-tokens", { token: CLIENT_TOKEN });
    expect(wrong.status).toBe(403);
    expect(wrong.body.name).toBe("NoAccessError");
  });

  it("stops accepting a deleted token", async () => {
    const created = await server.request("/api/admin/api-tokens", {
      method: "POST",
      body: { tokenName: "temp", type: "admin" },
    });
    expect((await server.request("/api/admin/api-tokens", { token: created.body.secret })).status).toBe(200);
    const removed = await server.request(`/api/admin/api-tokens/${created.body.id}`, { method: "DELETE" });
    expect(removed.status).toBe(200);
    expect((await server.request("/api/admin/api-tokens", { token: created.body.secret })).status).toBe(401);
  });

  it("answers 415 for a body that is not JSON, 413 for one over the limit, and accepts an empty JSON body", async () => {
    const text = await server.request("/api/admin/api-tokens", {
      method: "POST",
      body: "tokenName=x",
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    expect(text.body.name).toBe("ContentTypeerror");
    const huge = await server.request("/api/admin/api-tokens", {
      method: "POST",
      body: { tokenName: "x".repeat(200_000), type: "admin" },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.name).toBe("ContentTooLarge");
    expect(huge.body.message).toContain("102400 bytes; the BODY_LIMIT setting raises it");
    // Scripts send the JSON content type on body-less POSTs; that is no body, not bad JSON.
    const empty = await server.request("/api/admin/environments/development/on", {
      method: "POST",
      headers: { "content-type": "application/json" },
    });
    expect(empty.status).toBeLessThan(300);
  });
});

describe.runIf(process.env.DATABASE_URL)("initial tokens on instances starting together", () => {
  it("makes each initial token once, however many instances ensure it at the same moment", async () => {
    const server = await startTestServer("postgres");
    try {
      const secret = "*:production.started-together";
      await Promise.all(
        Array.from({ length: 4 }, () => server.services.tokens.ensure(system("test"), "client", [secret])),
      );
      const made = await server.db
        .selectFrom("api_tokens")
        .select("token_name")
        .where("token_name", "=", "init-client")
        .where("environment", "=", "production")
        .execute();
      expect(made).toHaveLength(1);
      const served = await server.request("/api/client/features", { token: secret });
      expect(served.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("token validation for relays (/edge/validate)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it("answers, without credentials, which secrets are SDK tokens and what each may read", async () => {
    const scoped = await server.request("/api/admin/api-tokens", {
      method: "POST",
      body: { tokenName: "relay", type: "client", environment: "production", projects: ["default"] },
    });
    const gone = await server.request("/api/admin/api-tokens", {
      method: "POST",
      body: { tokenName: "gone", type: "client", environment: "development" },
    });
    await server.request(`/api/admin/api-tokens/${gone.body.id}`, { method: "DELETE" });
    const asked = [
      CLIENT_TOKEN,
      FRONTEND_TOKEN,
      ADMIN_TOKEN,
      scoped.body.secret,
      gone.body.secret,
      "*:development.nope",
    ];
    const answer = await server.request("/edge/validate", {
      method: "POST",
      token: null,
      body: { tokens: asked },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      tokens: [
        { token: CLIENT_TOKEN, type: "client", projects: ["*"], environment: "development" },
        { token: FRONTEND_TOKEN, type: "frontend", projects: ["*"], environment: "development" },
        { token: scoped.body.secret, type: "client", projects: ["default"], environment: "production" },
      ],
    });
    const malformed = await server.request("/edge/validate", {
      method: "POST",
      token: null,
      body: { secrets: [CLIENT_TOKEN] },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ name: "ValidationError" });
  });
});
