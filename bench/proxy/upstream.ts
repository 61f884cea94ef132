// A stand-in flag service for the proxy benchmark: it serves one fixed document and
// accepts registrations and metrics, so both proxies see exactly the same upstream.
import { createServer, type Server } from "node:http";
import type { ClientFeatures } from "@signalbox/engine";

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
    response.writeHead(202).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/api`, server };
}
