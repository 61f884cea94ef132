/**
 * A sign-in under way, between the redirect to the provider and its answer: what proves the
 * answer belongs to this browser's request (state), that the ID token was minted for it
 * (nonce), and that the code is redeemed by whoever asked for it (the PKCE verifier).
 * It travels in a short-lived cookie of the browser that signs in, so any instance sharing
 * the database can finish what another began.
 */
export interface LoginAttempt {
  state: string;
  nonce: string;
  verifier: string;
  /** The path on this server to land on once signed in. */
  redirect: string;
}

export const ATTEMPT_COOKIE = "signalbox-oidc";
/** How long a person has to sign in at the provider, in seconds. */
export const ATTEMPT_SECONDS = 10 * 60;

export const encodeAttempt = (attempt: LoginAttempt): string =>
  Buffer.from(JSON.stringify(attempt)).toString("base64url");

/** The attempt a cookie holds; undefined for a cookie that is missing or not one this service set. */
export function decodeAttempt(value: string | undefined): LoginAttempt | undefined {
  if (!value) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, "base64url").toString());
  } catch {
    return undefined;
  }
  const fields = ["state", "nonce", "verifier", "redirect"] as const;
  const record = parsed as Record<string, unknown> | null;
  if (typeof record !== "object" || record === null) return undefined;
  return fields.every((field) => typeof record[field] === "string")
    ? (record as unknown as LoginAttempt)
    : undefined;
}

/**
 * Where to go after signing in: a path on this server, or nothing. Anything that could leave
 * it (another host, `//host`, a scheme, backslashes some browsers read as slashes) is refused,
 * so the sign-in cannot be used to send someone to a page that only looks like this one.
 */
export function localPath(value: string | undefined): string | undefined {
  if (!value?.startsWith("/") || value.includes("\\")) return undefined;
  const base = new URL("http://signalbox.invalid");
  const url = URL.parse(value, base.href);
  // Resolving dot segments can turn `/.//host` into `//host`: checked after, not before.
  if (url?.origin !== base.origin || url.pathname.startsWith("//")) return undefined;
  return `${url.pathname}${url.search}${url.hash}`;
}
