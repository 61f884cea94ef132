import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";

// Request bodies are validated with type coercion: a field that may be null must keep a null
// as null, and keep "", 0 and false as sent, whichever branch of its schema comes first.
describe("nullable fields", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  // biome-ignore lint/suspicious/noExplicitAny: tests assert on bodies rather than type them
  async function send(method: string, path: string, body: unknown): Promise<any> {
    const reply = await server.request(path, { method, body });
    expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
    return reply.body;
  }
  const read = async (path: string) => (await server.request(path)).body;
  const flag = "/api/admin/projects/default/features";

  it("writes every nullable field of every route as Nullable(...), never as a union with null", () => {
    const unions: string[] = [];
    const visit = (schema: unknown, at: string): void => {
      if (typeof schema !== "object" || schema === null) return;
      const { anyOf } = schema as { anyOf?: { type?: unknown }[] };
      if (anyOf?.some((member) => member.type === "null")) unions.push(at);
      for (const [key, inner] of Object.entries(schema)) visit(inner, `${at}.${key}`);
    };
    for (const route of server.routes) visit(route.schema, `${route.method} ${route.url}`);
    expect(unions).toEqual([]);
  });

  it("keeps a null project description, feature limit and naming example and description", async () => {
    await send("POST", "/api/admin/projects", { id: "nulls", name: "Nulls", description: null });
    expect((await read("/api/admin/projects/nulls")).description).toBeNull();

    await send("PUT", "/api/admin/projects/nulls", { name: "Nulls", description: "Set", featureLimit: 3 });
    await send("PUT", "/api/admin/projects/nulls", { name: "Nulls", description: null, featureLimit: null });
    expect(await read("/api/admin/projects/nulls")).toMatchObject({ description: null, featureLimit: null });

    await send("PUT", "/api/admin/projects/nulls/settings", {
      featureNaming: { pattern: "^nulls-", example: null, description: null },
    });
    expect((await read("/api/admin/projects/nulls")).featureNaming).toEqual({
      pattern: "^nulls-",
      example: null,
      description: null,
    });
  });

  it("keeps a null flag description and strategy title", async () => {
    await send("POST", flag, { name: "null-flag", description: null });
    expect((await read(`${flag}/null-flag`)).description).toBeNull();
    await send("PUT", `${flag}/null-flag`, { description: null });
    expect((await read(`${flag}/null-flag`)).description).toBeNull();

    const strategy = await send("POST", `${flag}/null-flag/environments/development/strategies`, {
      name: "default",
      title: null,
    });
    expect(strategy.title).toBeNull();
    expect(
      (await read(`${flag}/null-flag/environments/development/strategies/${strategy.id}`)).title,
    ).toBeNull();
  });

  it("keeps a null segment description and project", async () => {
    const segment = await send("POST", "/api/admin/segments", {
      name: "null-segment",
      description: null,
      project: null,
      constraints: [],
    });
    expect(await read(`/api/admin/segments/${segment.id}`)).toMatchObject({
      description: null,
      project: null,
    });
  });

  it("keeps a null context field, tag type and strategy definition description", async () => {
    await send("POST", "/api/admin/context", { name: "nullField", description: null });
    expect((await read("/api/admin/context/nullField")).description).toBeNull();

    await send("POST", "/api/admin/tag-types", { name: "null-tags", description: null, icon: null });
    expect((await read("/api/admin/tag-types/null-tags")).tagType).toMatchObject({
      description: null,
      icon: null,
    });

    await send("POST", "/api/admin/strategies", {
      name: "null-strategy",
      displayName: null,
      description: null,
      parameters: [],
    });
    expect(await read("/api/admin/strategies/null-strategy")).toMatchObject({
      displayName: null,
      description: null,
    });
  });

  it("keeps a null API token expiry", async () => {
    const token = await send("POST", "/api/admin/api-tokens", {
      tokenName: "never-expires",
      type: "client",
      environment: "development",
      expiresAt: null,
    });
    expect(token.expiresAt).toBeNull();
    const { tokens } = await read("/api/admin/api-tokens");
    expect(
      tokens.find((listed: { tokenName: string }) => listed.tokenName === "never-expires").expiresAt,
    ).toBeNull();
  });

  it("keeps a null group description and root role", async () => {
    const group = await send("POST", "/api/admin/groups", {
      name: "Null group",
      description: null,
      rootRole: null,
    });
    expect(await read(`/api/admin/groups/${group.id}`)).toMatchObject({ description: null, rootRole: null });
  });

  it("keeps empty text, zero and false as sent rather than as null", async () => {
    await send("POST", "/api/admin/projects", { id: "empties", name: "Empties", description: "" });
    await send("PUT", "/api/admin/projects/empties", { name: "Empties", description: "", featureLimit: 0 });
    expect(await read("/api/admin/projects/empties")).toMatchObject({ description: "", featureLimit: 0 });

    await send("POST", flag, { name: "empty-flag" });
    const strategy = await send("POST", `${flag}/empty-flag/environments/development/strategies`, {
      name: "default",
      title: "",
      disabled: false,
    });
    expect(await read(`${flag}/empty-flag/environments/development/strategies/${strategy.id}`)).toMatchObject(
      { title: "", disabled: false },
    );

    const group = await send("POST", "/api/admin/groups", { name: "Empty group", description: "" });
    expect((await read(`/api/admin/groups/${group.id}`)).description).toBe("");
  });
});
