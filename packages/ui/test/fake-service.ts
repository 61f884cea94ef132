/** A request the component under test sent, its JSON body parsed. */
export interface Sent {
  method: string;
  path: string;
  body: unknown;
  /** The query string's parameters, when the request had any. */
  query?: Record<string, string>;
}

/** What a fake route answers: a JSON value (200), a Response as is, or either computed from the request. */
export type Answer = unknown | ((sent: Sent) => unknown);

const json = (status: number, value: unknown) =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });

/**
 * Stands in for the service in component tests. The API client takes `fetch` when it is
 * created, so this must run before it is imported: call it in `vi.hoisted`. Routes are
 * keyed "METHOD /path"; anything else answers 404, as the service would.
 */
export function installFakeService() {
  let routes = new Map<string, Answer>();
  const sent: Sent[] = [];
  // The client builds Requests from paths alone, which only a browser resolves.
  const BrowserRequest = globalThis.Request;
  globalThis.Request = class extends BrowserRequest {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === "string" ? new URL(input, window.location.href) : input, init);
    }
  };
  globalThis.fetch = async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    const entry: Sent = {
      method: request.method,
      path: url.pathname,
      body: text ? JSON.parse(text) : undefined,
      ...(url.search ? { query: Object.fromEntries(url.searchParams) } : {}),
    };
    sent.push(entry);
    const answer = routes.get(`${entry.method} ${entry.path}`);
    if (answer === undefined)
      return json(404, { name: "NotFoundError", message: `No ${entry.method} ${entry.path}` });
    const value = typeof answer === "function" ? await answer(entry) : answer;
    return value instanceof Response ? value : json(200, value ?? null);
  };
  return {
    /** Replaces the routes and forgets what was sent before. */
    serve(next: Record<string, Answer>) {
      routes = new Map(Object.entries(next));
      sent.length = 0;
    },
    sent,
  };
}
