import { createHash, randomBytes } from "node:crypto";
import { invalidField, noAccess, notFound } from "@signalbox/protocol";
import type { Actor, TokenActor, TokenType } from "../../access/actor.js";
import { can, canSee, hiddenProjects, requirePermission } from "../../access/can.js";
import type { Db } from "../../db/connection.js";
import { LastSeen } from "../../shared/last-seen.js";
import type { EnvironmentService } from "../environments/service.js";
import { resource } from "../events/resource.js";
import type { EventService } from "../events/service.js";
import type { ProjectService } from "../projects/service.js";
import type {} from "./events.js";
import { TOKEN_PERMISSIONS } from "./permissions.js";
import type { CreatedToken, NewToken, TokenView, ValidatedTokens } from "./schemas.js";
import { type TokenRow, tokenStore } from "./store.js";

/** Who is calling, resolved from the `authorization` header. */
export type Principal = TokenActor;

const hash = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** `backend` is the reference's current name for client tokens; both are accepted. */
export function tokenType(type: string): TokenType | undefined {
  const normal = type.toLowerCase();
  if (normal === "client" || normal === "backend") return "client";
  if (normal === "frontend" || normal === "admin") return normal;
  return undefined;
}

function projectPart(projects: string[]): string {
  if (projects.includes("*")) return "*";
  return projects.length === 1 ? projects[0]! : "[]";
}

/** Reads the scope a token's text claims: `<project>:<environment>.<secret>`. */
export function parseTokenScope(secret: string): { projects: string[]; environment: string } | undefined {
  const match = /^([^:]+):([^.]+)\.(.+)$/.exec(secret);
  if (!match) return undefined;
  const project = match[1]!;
  // `[]` marks a token for several projects, which ones the secret does not say; an empty
  // list would read as every project.
  if (project === "[]") return undefined;
  return { projects: [project], environment: match[2]! };
}

function view(row: TokenRow): TokenView {
  const projects = row.projects;
  return {
    id: row.id,
    tokenName: row.token_name,
    username: row.token_name,
    type: row.type as TokenType,
    environment: row.environment,
    project: projectPart(projects),
    projects,
    secretPrefix: row.display,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
    seenAt: row.seen_at?.toISOString() ?? null,
  };
}

/** A token naming a private project the actor may not see does not exist for them, as the project does not. */
const visible = (actor: Actor, token: TokenView) =>
  token.projects.every((project) => project === "*" || canSee(actor, project));

/** A token for every project reads the private ones too: only who sees them all may change it. */
function requireWholeView(actor: Actor, token: TokenView): void {
  if (token.projects.includes("*") && hiddenProjects(actor).length > 0) {
    throw noAccess(
      "This token reads every project, private ones you cannot see included: only someone who sees every project may change or delete it.",
    );
  }
}

const tokenMissing = (id: number | string) => notFound(`Could not find API token ${id}`);

// The update event carries no environment, as it always has: only create and delete name one.
const tokens = resource({
  read: async (db: Db, id: number) => {
    const row = await tokenStore.byId(db, id);
    return row && view(row);
  },
  missing: tokenMissing,
  subject: (token) => ({ environment: token.environment }),
  events: { created: "api-token-created", deleted: "api-token-deleted" },
});

// Revocations do not wait for this: every instance drops its cache when credentials change.
const CACHE_MS = 60_000;

/** A token id as the path gives it; one no row can have (not a number, past the column's range) is none. */
function tokenId(text: string): number | undefined {
  const id = Number(text);
  return /^\d+$/.test(text) && id <= 2_147_483_647 ? id : undefined;
}

export class TokenService {
  // Every authenticated request resolves its token; a short-lived cache keeps SQL off that path.
  private readonly cache = new Map<
    string,
    { principal: Principal | undefined; until: number; expiresAt: number }
  >();
  // Bumped whenever the cache is dropped: a lookup that started before a revocation must not
  // put its (now stale) answer back into the cache.
  private generation = 0;
  private readonly seen = new LastSeen((ids, at) => tokenStore.markSeen(this.db, ids, at));

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly environments: EnvironmentService,
    private readonly projects: ProjectService,
  ) {
    events.onCredentialsChanged(() => {
      this.generation++;
      this.cache.clear();
    });
  }

  /** Starts writing `seenAt` every `flushMs`. */
  start(flushMs: number): void {
    this.seen.start(flushMs);
  }

  stop(): Promise<void> {
    return this.seen.stop();
  }

  flushSeen(): Promise<void> {
    return this.seen.flush();
  }

  /** The tokens of the types the actor may read, of projects the actor sees. */
  async list(actor: Actor): Promise<TokenView[]> {
    return (await tokenStore.list(this.db))
      .map(view)
      .filter((token) => can(actor, TOKEN_PERMISSIONS.read[token.type]) && visible(actor, token));
  }

  /** Creates a token and returns its secret: the only time anyone sees it. */
  async create(actor: Actor, input: NewToken, secret?: string): Promise<CreatedToken> {
    const type = tokenType(input.type);
    if (!type) throw invalidField("type", `type must be one of client, backend, frontend, admin`);
    requirePermission(actor, TOKEN_PERMISSIONS.create[type]);
    const tokenName = input.tokenName ?? input.username;
    if (!tokenName) throw invalidField("tokenName", "tokenName is required");
    const requested = input.projects ?? (input.project ? [input.project] : []);
    const projects = [...new Set(requested.length > 0 ? requested : ["*"])];
    const scope = projects.includes("*") ? ["*"] : projects;
    const environment = input.environment ?? (type === "admin" ? "*" : "development");
    if (type === "admin" && (environment !== "*" || scope[0] !== "*")) {
      throw invalidField("environment", "admin tokens cover all projects and all environments");
    }
    if (type !== "admin" && environment === "*") {
      throw invalidField("environment", `${type} tokens must name one environment`);
    }
    // Every project includes the private ones hidden from the actor, whose flags it would read.
    if (scope[0] === "*" && hiddenProjects(actor).length > 0) {
      throw noAccess(
        `${actor.name} cannot create a token for all projects: only someone who sees every project can. Name the projects it is for.`,
      );
    }
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && Number.isNaN(expiresAt.getTime()))
      throw invalidField("expiresAt", "expiresAt must be a date");

    return this.events.change(actor, async (change) => {
      if (type !== "admin" && (await this.environments.missing(change.db, [environment])).length > 0) {
        throw invalidField("environment", `environment ${environment} does not exist`);
      }
      if (scope[0] !== "*") {
        // A project hidden from the actor is answered as one that does not exist, word for word.
        const unknown = new Set(await this.projects.missing(change.db, scope));
        const missing = scope.find((project) => unknown.has(project) || !canSee(actor, project));
        if (missing) throw invalidField("projects", `project ${missing} does not exist`);
      }
      const prefix = `${projectPart(scope)}:${environment}.`;
      const full = secret ?? `${prefix}${randomBytes(28).toString("hex")}`;
      const created = await tokens.create(change, () =>
        tokenStore.insert(change.db, {
          token_name: tokenName,
          type,
          environment,
          projects: scope,
          secret_hash: hash(full),
          // The scope only: any part of the random secret would help guess a short one.
          display: full.slice(0, full.indexOf(".") + 1),
          expires_at: expiresAt,
        }),
      );
      change.credentialsChanged();
      return { ...created, secret: full };
    });
  }

  /** Creates the tokens named at start-up unless they exist: a fresh install is scriptable at once. */
  async ensure(actor: Actor, type: TokenType, secrets: readonly string[]): Promise<void> {
    for (const secret of secrets) {
      if (await tokenStore.byHash(this.db, hash(secret))) continue;
      const scope = parseTokenScope(secret);
      if (!scope) throw new Error(`initial ${type} token must look like <project>:<environment>.<secret>`);
      try {
        await this.create(
          actor,
          { tokenName: `init-${type}`, type, environment: scope.environment, projects: scope.projects },
          secret,
        );
      } catch (error) {
        // Another instance starting on the same database may have made it in the meantime.
        if (await tokenStore.byHash(this.db, hash(secret))) continue;
        throw error;
      }
    }
  }

  async updateExpiry(actor: Actor, idText: string, expiresAt: string): Promise<TokenView> {
    const date = new Date(expiresAt);
    if (Number.isNaN(date.getTime())) throw invalidField("expiresAt", "expiresAt must be a date");
    const id = tokenId(idText);
    if (id === undefined) throw tokenMissing(idText);
    return this.events.change(actor, async (change) => {
      const before = await tokens.require(change.db, id);
      if (!visible(actor, before)) throw tokenMissing(id);
      requirePermission(actor, TOKEN_PERMISSIONS.update[before.type]);
      requireWholeView(actor, before);
      await tokenStore.updateExpiry(change.db, id, date);
      const after = await tokens.require(change.db, id);
      change.record({ type: "api-token-updated", data: after, preData: before });
      change.credentialsChanged();
      return after;
    });
  }

  /** Deletes by id, or by the full secret as older clients of the reference do. */
  async remove(actor: Actor, idOrSecret: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const id = /^\d+$/.test(idOrSecret)
        ? tokenId(idOrSecret)
        : (await tokenStore.byHash(change.db, hash(idOrSecret)))?.id;
      if (id === undefined) throw tokenMissing(idOrSecret);
      await tokens.remove(change, id, async (before) => {
        if (!visible(actor, before)) throw tokenMissing(idOrSecret);
        requirePermission(actor, TOKEN_PERMISSIONS.delete[before.type]);
        requireWholeView(actor, before);
        await tokenStore.remove(change.db, id);
      });
      change.credentialsChanged();
    });
  }

  /**
   * The SDK tokens among the secrets, with their scope: admin tokens, personal tokens and
   * unknown or expired secrets are left out alike, since a relay serves SDKs only.
   */
  async validate(secrets: string[]): Promise<ValidatedTokens["tokens"]> {
    const valid: ValidatedTokens["tokens"] = [];
    for (const secret of new Set(secrets)) {
      const principal = await this.resolve(secret);
      if (principal?.type === "client" || principal?.type === "frontend") {
        const { type, projects, environment } = principal;
        valid.push({ token: secret, type, projects, environment });
      }
    }
    return valid;
  }

  /** A secret looked up lately is answered from the cache at once: SDK polls wait on no promise. */
  resolve(secret: string): Principal | undefined | Promise<Principal | undefined> {
    const now = Date.now();
    const cached = this.cache.get(secret);
    if (cached && cached.until > now && cached.expiresAt > now) {
      if (cached.principal) this.seen.mark(cached.principal.tokenId);
      return cached.principal;
    }
    return this.lookup(secret, now);
  }

  private async lookup(secret: string, now: number): Promise<Principal | undefined> {
    const generation = this.generation;
    const row = await tokenStore.byHash(this.db, hash(secret));
    const expiresAt = row?.expires_at?.getTime() ?? Number.POSITIVE_INFINITY;
    const principal =
      row && expiresAt > now
        ? {
            kind: "token" as const,
            type: row.type as TokenType,
            name: row.token_name,
            projects: row.projects,
            environment: row.environment,
            tokenId: row.id,
          }
        : undefined;
    if (generation === this.generation) {
      if (this.cache.size > 10_000) this.cache.clear();
      // Unknown secrets are remembered briefly only, in case a notice of a new token is lost.
      this.cache.set(secret, { principal, until: now + (principal ? CACHE_MS : 1000), expiresAt });
    }
    if (principal) this.seen.mark(principal.tokenId);
    return principal;
  }
}
