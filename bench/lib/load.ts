import { createRequire } from "node:module";
import autocannon from "autocannon";

// autocannon appends every chunk of every response body to a string (`body += chunk`, a UTF-8
// decode), for checks these benchmarks never ask for (expectBody, verifyBody, onResponse).
// With the 511 kB SDK document of 1 000 flags that decoding held the load generator's core
// while Signalbox used a quarter of one, so the full-body rows measured the load generator:
// without it, bench:client-api's full-body row went from 1 074 to 5 736 req/s for Signalbox
// (0.25 to 0.79 of a core) and from 226 to 266 for the reference (a core either way). The
// bytes are still counted (addByteCount); only the string goes.
const queue = createRequire(import.meta.url)("autocannon/lib/pipelinedRequestsQueue.js") as {
  prototype: { addBody(data: Buffer): void };
};
queue.prototype.addBody = () => {};

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Connection errors, timeouts and 4xx/5xx answers (a 304 is an answer, not a failure). */
  failures: number;
  failureKinds: Record<string, number>;
}

export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * Drives `url` at a fixed number of connections, cycling through the given requests, or
 * asking `requests` for the n-th one (for bodies too many or too large to hold at once).
 */
export async function load(
  url: string,
  requests: LoadRequest[] | ((index: number) => LoadRequest),
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  let next = 0;
  const failureKinds: Record<string, number> = {};
  const tally = (kind: string) => {
    failureKinds[kind] = (failureKinds[kind] ?? 0) + 1;
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        duration: seconds,
        pipelining: 1,
        // Listed requests are built once (by each connection, which then cycles through
        // them), on copies, since autocannon keeps the built bytes on the objects it is given:
        // through setupRequest it builds every request anew, which doubled its CPU per
        // request (20 against 40 µs for a 304) and made the load generator what the fastest
        // rows measured.
        requests: Array.isArray(requests)
          ? requests.map((request) => ({ ...request }))
          : [
              {
                setupRequest: (request) => {
                  const chosen = requests(next++);
                  return {
                    ...request,
                    method: chosen.method,
                    path: chosen.path,
                    headers: chosen.headers,
                    body: chosen.body,
                  };
                },
              },
            ],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on("reqError", (error: NodeJS.ErrnoException) => tally(error.code ?? error.message));
    instance.on("response", (_client, statusCode) => {
      if (statusCode >= 400) tally(`HTTP ${statusCode}`);
    });
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: Object.values(failureKinds).reduce((sum, count) => sum + count, 0),
    failureKinds,
  };
}
