// The frontend API's side of the benchmark: a frontend token made through the admin API,
// and one browser's context sent as browser SDKs send it.
import { buildContexts } from "../engine/config.js";
import type { LoadRequest } from "../lib/load.js";

/** Makes a frontend token for every project of `development`, as an operator would. */
export async function frontendToken(url: string, adminToken: string): Promise<string> {
  const response = await fetch(`${url}/api/admin/api-tokens`, {
    method: "POST",
    headers: { authorization: adminToken, "content-type": "application/json" },
    body: JSON.stringify({
      tokenName: "bench-frontend",
      type: "frontend",
      environment: "development",
      projects: ["*"],
    }),
  });
  if (!response.ok) throw new Error(`creating a frontend token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { secret: string }).secret;
}

/** One browser's context, in the query string (GET) or the body (POST). */
export function frontendRequests(token: string): { get: LoadRequest; post: LoadRequest } {
  const { currentTime: _, environment: __, ...context } = buildContexts(1)[0]!;
  const query = new URLSearchParams({
    appName: context.appName,
    userId: context.userId,
    sessionId: context.sessionId,
    remoteAddress: context.remoteAddress,
  });
  for (const [name, value] of Object.entries(context.properties)) query.set(`properties[${name}]`, value);
  return {
    get: { method: "GET", path: `/api/frontend?${query}`, headers: { authorization: token } },
    post: {
      method: "POST",
      path: "/api/frontend",
      headers: { authorization: token, "content-type": "application/json" },
      body: JSON.stringify({ context }),
    },
  };
}

/** How many flags the frontend API enables for the request: the same number on both services. */
export async function enabledFor(url: string, request: LoadRequest): Promise<number> {
  const response = await fetch(`${url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  if (!response.ok) throw new Error(`${request.method} /api/frontend: ${response.status}`);
  return ((await response.json()) as { toggles: unknown[] }).toggles.length;
}
