import autocannon from "autocannon";

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
