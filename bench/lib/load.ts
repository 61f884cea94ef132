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

/** Drives `url` at a fixed number of connections, cycling through the given requests. */
export async function load(
  url: string,
  requests: LoadRequest[],
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
        requests: [
          {
            setupRequest: (request) => {
              const chosen = requests[next++ % requests.length]!;
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
