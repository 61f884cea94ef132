import autocannon from "autocannon";

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
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
  const result = await autocannon({
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
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}
