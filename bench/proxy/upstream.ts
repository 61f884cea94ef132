// A stand-in flag service for the proxy benchmark: it serves one fixed document, knows the
// client and frontend tokens below (as its /edge/validate tells the Signalbox proxy's
// /api routes), and accepts registrations and metrics, so both proxies see exactly the same
// upstream.
import { createServer, type Server } from "node:http";
import type { ClientFeatures } from "@signalbox/engine";

/** The flag service's own tokens, as SDKs in Unleash Edge's place use them on the Signalbox proxy's /api. */
export const SERVICE_TOKENS = {
  client: "*:development.bench-client",
  frontend: "*:development.bench-frontend",
};
const VALIDATED = JSON.stringify({
  tokens: Object.entries(SERVICE_TOKENS).map(([type, token]) => ({
    token,
    type,
    environment: "development",
    projects: ["*"],
  })),
});

export async function startUpstream(document: ClientFeatures): Promise<{ url: string; server: Server }> {
  const body = JSON.stringify(document);
  const server = createServer((request, response) => {
    request.resume();
    if (request.method === "GET" && request.url?.startsWith("/api/client/features")) {
      if (request.headers["if-none-match"] === '"bench"') {
        response.writeHead(304).end();
        return;
      }
      response.writeHead(200, { "content-type": "application/json", etag: '"bench"' }).end(body);
      return;
    }
    if (request.method === "POST" && request.url === "/edge/validate") {
      response.writeHead(200, { "content-type": "application/json" }).end(VALIDATED);
      return;
    }
    response.writeHead(202).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/api`, server };
}
