import type { FastifyRequest } from "fastify";

/**
 * Anything but GET, HEAD and OPTIONS may change something. Those three a page on any origin
 * may make: they change nothing, and CORS keeps their answers from the page.
 */
export const changesState = (request: FastifyRequest) =>
  request.method !== "GET" && request.method !== "HEAD" && request.method !== "OPTIONS";

/**
 * Where a browser says a request was made: on this service's own pages, elsewhere (and how
 * it says so), or unsaid, as by scripts and by browsers too old to tell.
 */
export type Provenance = { from: "own pages" } | { from: "elsewhere"; evidence: string } | { from: "unsaid" };

const OWN: Provenance = { from: "own pages" };
const UNSAID: Provenance = { from: "unsaid" };

/**
 * SameSite=Lax keeps the session cookie from other sites only: another port of the same host,
 * or a sibling subdomain, is the same site and gets it. What tells them apart is the
 * browser's own word, which no page can forge: Sec-Fetch-Site first, and where a browser
 * does not send it, Origin against the origin the request was sent to (as the client saw
 * it: behind a proxy, X-Forwarded-Proto and -Host when TRUST_PROXY believes them).
 */
export function provenance(request: FastifyRequest): Provenance {
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined) {
    // "none": a person typed, bookmarked or dragged it in; no page made it.
    if (site === "same-origin" || site === "none") return OWN;
    return {
      from: "elsewhere",
      evidence: `the browser says it was made by a ${site} page (Sec-Fetch-Site: ${site})`,
    };
  }
  const origin = request.headers.origin;
  if (origin === undefined) return UNSAID;
  const own = `${request.protocol}://${request.host}`;
  return sameOrigin(origin, own)
    ? OWN
    : { from: "elsewhere", evidence: `it was sent from ${origin}, and this service is at ${own}` };
}

// Through URL, so that default ports and letter case compare as the browser means them.
function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    // "null" (a sandboxed frame, a redirect from elsewhere) or nonsense: not this service's pages.
    return false;
  }
}
