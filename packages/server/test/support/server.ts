import { system } from "../../src/access/actor.js";
import { buildApp } from "../../src/app.js";
import { type Config, defaultConfig, PASSWORD_HASH_COST } from "../../src/config.js";
import type { Db } from "../../src/db/connection.js";
import { type DatabaseKind, freshDatabase } from "./database.js";
import { responseCheck } from "./response-check.js";

export const ADMIN_TOKEN = "*:*.test-admin-secret";
export const CLIENT_TOKEN = "*:development.test-client-secret";
export const FRONTEND_TOKEN = "*:development.test-frontend-secret";

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** `null` sends no authorization header; the admin token is the default. */
  token?: string | null;
  headers?: Record<string, string>;
}

export interface TestServer {
  url: string;
  db: Db;
  services: Awaited<ReturnType<typeof buildApp>>["services"];
  routes: Awaited<ReturnType<typeof buildApp>>["routes"];
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on bodies rather than type them
  request<T = any>(path: string, options?: RequestOptions): Promise<Reply<T>>;
  /** Responses that did not match their OpenAPI schema; closing the server fails on any. */
  violations: string[];
  close(): Promise<void>;
}

/**
 * The flag service on a random port over a database of its own, with one token of each type;
 * or over `shared`, which closing leaves open: how a test restarts the service on its data.
 */
export async function startTestServer(
  kind: DatabaseKind = "pglite",
  shared?: Awaited<ReturnType<typeof freshDatabase>>,
  config: Partial<Config> = {},
): Promise<TestServer> {
  const connection = shared ?? (await freshDatabase(kind));
  const violations: string[] = [];
  const { app, services, routes } = await buildApp(
    // The lowest hashing cost: logging people in is what many tests do, and the cost is scrypt's.
    defaultConfig({ logLevel: "silent", passwordHashCost: PASSWORD_HASH_COST.test, ...config }),
    connection.db,
    {
      plugins: [responseCheck(violations)],
      pool: connection.pool,
    },
  );
  await services.events.start();
  services.events.outbox.start(app.log);
  await services.changeRequestScheduler.start(app.log);
  await services.releaseScheduler.start(app.log);
  // Hourly, as in production; tests that need it run the job themselves (services.staleness.run).
  services.staleness.start(3_600_000, app.log);
  // Addons made by another instance (or written straight to the database) are seen within half a second.
  await services.addons.start(app.log, 500);
  await services.tokens.ensure(system("test"), "admin", [ADMIN_TOKEN]);
  await services.tokens.ensure(system("test"), "client", [CLIENT_TOKEN]);
  await services.tokens.ensure(system("test"), "frontend", [FRONTEND_TOKEN]);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    url,
    db: connection.db,
    services,
    routes,
    async request(path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const token = options.token === undefined ? ADMIN_TOKEN : options.token;
      if (token) headers.authorization = token;
      // A session is a browser's, which says where a request comes from: here, the service's own pages.
      if (headers.cookie && !headers.origin && !headers["sec-fetch-site"]) headers.origin = url;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
        headers["content-type"] ??= "application/json";
      }
      const response = await fetch(`${url}${path}`, { method: options.method ?? "GET", headers, body });
      // An event stream never ends by itself: its status and headers are the answer.
      if (response.headers.get("content-type") === "text/event-stream") {
        await response.body?.cancel();
        return { status: response.status, headers: response.headers, body: undefined as never };
      }
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {}
      return { status: response.status, headers: response.headers, body: parsed as never };
    },
    violations,
    async close() {
      await services.changeRequestScheduler.stop();
      await services.releaseScheduler.stop();
      await services.staleness.stop();
      await services.addons.stop();
      await services.events.outbox.stop();
      await services.events.stop();
      await app.close();
      if (!shared) await connection.close();
      if (violations.length > 0) {
        throw new Error(`responses that break the OpenAPI document:\n${[...new Set(violations)].join("\n")}`);
      }
    },
  };
}
