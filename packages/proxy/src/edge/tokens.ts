import type { Outbound } from "../outbound.js";

/** A secret of the flag service's, as its `/edge/validate` describes it. */
export interface KnownToken {
  secret: string;
  kind: "client" | "frontend";
  environment: string;
  /** `*` for every project. */
  projects: string[];
}

export type Validation =
  | { outcome: "valid"; token: KnownToken }
  /** The upstream does not know the secret, or it is of a kind no SDK may use (admin, personal). */
  | { outcome: "invalid" }
  /** The upstream could not be asked: nothing is known either way. */
  | { outcome: "unknown"; reason: string };

/** What the /api routes ask about a secret: the flag service (TokenValidator), or offline mode's list. */
export interface TokenCheck {
  /** What the secret may see, from memory where it is fresh. */
  validate(secret: string): Promise<Validation>;
  /** The same, asked again once memory is stale: for a long-lived stream. */
  revalidate(secret: string): Promise<Validation>;
}

export interface ValidatorSettings {
  /** The flag service's API URL, ending in /api: `/edge/validate` sits beside it. */
  serviceUrl: string;
  headers: Record<string, string>;
  /** How long a valid secret is trusted before the upstream is asked again. */
  revalidateMs: number;
  /** How long a refused secret is refused without asking again. */
  refusedMs: number;
}

interface Entry {
  validation: Extract<Validation, { outcome: "valid" }>;
  at: number;
}

/**
 * Valid secrets remembered at most, and refused ones apart, so that a flood of wrong secrets
 * never pushes out the valid ones; past it the oldest is forgotten (and asked about again if
 * it returns).
 */
const REMEMBERED = 10_000;
/** Secrets being asked about at once; past it an unknown secret is answered "cannot ask now" (503). */
const ASKING_AT_ONCE = 64;

const kindOf = (type: unknown): KnownToken["kind"] | undefined =>
  type === "client" || type === "backend" ? "client" : type === "frontend" ? "frontend" : undefined;

/**
 * Learns what an SDK's secret may see by asking the flag service (`POST /edge/validate`, as
 * Unleash Edge does, answered by Signalbox and unleash-server alike), and remembers it: a
 * valid secret is trusted for `revalidateMs` and then asked about again while it keeps
 * being served, so a revoked one stops working within that time; a refused one is refused
 * for `refusedMs`, so that a stream of wrong secrets costs the upstream one call each at most
 * that often, and no more than a few calls at once.
 */
export class TokenValidator implements TokenCheck {
  private readonly url: string;
  private readonly known = new Map<string, Entry>();
  private readonly refused = new Map<string, number>();
  private readonly asking = new Map<string, Promise<Validation>>();

  constructor(
    private readonly settings: ValidatorSettings,
    private readonly outbound: Outbound,
    private readonly now: () => number = Date.now,
  ) {
    this.url = `${settings.serviceUrl.replace(/\/api$/, "")}/edge/validate`;
  }

  /**
   * What the secret may see. A trusted secret is answered from memory, asked about again in
   * the background once its time is up; a secret the upstream revoked is refused from then on.
   */
  async validate(secret: string): Promise<Validation> {
    const entry = this.known.get(secret);
    if (entry) {
      if (this.now() - entry.at >= this.settings.revalidateMs) void this.ask(secret);
      return entry.validation;
    }
    const refusedAt = this.refused.get(secret);
    if (refusedAt !== undefined && this.now() - refusedAt < this.settings.refusedMs)
      return { outcome: "invalid" };
    if (this.asking.size >= ASKING_AT_ONCE && !this.asking.has(secret)) {
      return { outcome: "unknown", reason: "too many tokens are being checked at once" };
    }
    return this.ask(secret);
  }

  /** Asks the upstream again now, whatever is remembered: for a long-lived stream's keep-alive. */
  revalidate(secret: string): Promise<Validation> {
    const entry = this.known.get(secret);
    if (entry && this.now() - entry.at < this.settings.revalidateMs) return Promise.resolve(entry.validation);
    return this.ask(secret);
  }

  private ask(secret: string): Promise<Validation> {
    let pending = this.asking.get(secret);
    if (!pending) {
      pending = this.request(secret).finally(() => this.asking.delete(secret));
      this.asking.set(secret, pending);
    }
    return pending;
  }

  private async request(secret: string): Promise<Validation> {
    let validation: Validation;
    try {
      const response = await this.outbound.send(
        this.url,
        "POST",
        { ...this.settings.headers, "content-type": "application/json", accept: "application/json" },
        JSON.stringify({ tokens: [secret] }),
      );
      if (response.statusCode !== 200) {
        validation = { outcome: "unknown", reason: `${this.url} answered HTTP ${response.statusCode}` };
      } else {
        const listed = (JSON.parse(response.body) as { tokens?: Record<string, unknown>[] }).tokens ?? [];
        const found = listed.find((token) => token.token === secret);
        const kind = kindOf(found?.type);
        validation =
          found && kind && typeof found.environment === "string" && Array.isArray(found.projects)
            ? {
                outcome: "valid",
                token: {
                  secret,
                  kind,
                  environment: found.environment,
                  projects: found.projects.map(String).sort(),
                },
              }
            : { outcome: "invalid" };
      }
    } catch (error) {
      validation = { outcome: "unknown", reason: (error as Error).message };
    }
    // An upstream that cannot answer changes nothing: a secret known valid stays so.
    if (validation.outcome === "unknown") return this.known.get(secret)?.validation ?? validation;
    this.known.delete(secret);
    this.refused.delete(secret);
    if (validation.outcome === "valid") remember(this.known, secret, { validation, at: this.now() });
    else remember(this.refused, secret, this.now());
    return validation;
  }
}

/** Adds to a bounded map, forgetting its oldest entry when full. */
function remember<T>(map: Map<string, T>, key: string, value: T): void {
  if (map.size >= REMEMBERED) map.delete(map.keys().next().value!);
  map.set(key, value);
}
