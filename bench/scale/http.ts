// The benchmark's calls to a service: JSON in and out, a failure being an error that says
// what was asked and what came back.

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** Milliseconds from sending to the whole body read. */
  ms: number;
}

export async function send(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: token } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, ms: performance.now() - started };
}

/** A call that must succeed; answers its parsed body. */
export async function must<T = unknown>(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const answer = await send(base, token, method, path, body, headers);
  if (answer.status >= 300) {
    throw new Error(`${method} ${path}: ${answer.status} ${answer.text.slice(0, 400)}`);
  }
  return (answer.text ? JSON.parse(answer.text) : undefined) as T;
}

/** Runs `run` over `items` with at most `limit` at a time. */
export async function inParallel<T>(
  items: T[],
  limit: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await run(items[next++]!);
  });
  await Promise.all(workers);
}
