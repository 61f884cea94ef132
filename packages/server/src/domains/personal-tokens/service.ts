import { createHash, randomBytes } from "node:crypto";
import { invalidField, nameExists, noAccess, notFound } from "@signalbox/protocol";
import type { Actor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import { LastSeen } from "../../shared/last-seen.js";
import type { EventService } from "../events/service.js";
import type { UserRow, UserService } from "../users/service.js";
import type { PersonalTokenEventData } from "./events.js";
import type { CreatedPersonalToken, HeldTokenView, NewPersonalToken, PersonalTokenView } from "./schemas.js";
import { type PersonalTokenRow, personalTokenStore } from "./store.js";

const hash = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** How many tokens one user or service account may hold, expired ones included, as in the reference. */
const LIMIT = 10;

const view = (row: PersonalTokenRow): PersonalTokenView => ({
  id: row.id,
  description: row.description,
  userId: row.user_id,
  createdAt: row.created_at.toISOString(),
  expiresAt: row.expires_at.toISOString(),
  seenAt: row.seen_at?.toISOString() ?? null,
});

// Events name the token, never its secret or hash.
const eventData = (row: PersonalTokenRow): PersonalTokenEventData => ({
  id: row.id,
  description: row.description,
  expiresAt: row.expires_at.toISOString(),
  userId: row.user_id,
});

/** The user a caller manages their own tokens as; API tokens have none. */
function owner(actor: Actor): number {
  if (actor.kind === "user") return actor.userId;
  throw noAccess(
    "A personal access token belongs to a user, and an API token is not one: log in, or use a personal access token, to manage your own.",
  );
}

/**
 * Personal access tokens: a user's own credentials for scripts, acting with exactly their
 * permissions; and the tokens admins give service accounts, which are the same thing.
 */
export class PersonalTokenService {
  private readonly seen = new LastSeen((ids, at) => personalTokenStore.markSeen(this.db, ids, at));

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly users: Pick<UserService, "acting" | "find">,
  ) {}

  /** Starts writing `seenAt` every `flushMs`. */
  start(flushMs: number): void {
    this.seen.start(flushMs);
  }

  stop(): Promise<void> {
    return this.seen.stop();
  }

  /**
   * The user behind a token, while it is unexpired and its user active; what they may do is
   * project access's to say (grants), a layer up.
   */
  async resolve(secret: string): Promise<UserRow | undefined> {
    const token = await personalTokenStore.active(this.db, hash(secret), new Date());
    if (!token) return undefined;
    const user = await this.users.acting(token.user_id);
    if (user) this.seen.mark(token.id);
    return user;
  }

  flushSeen(): Promise<void> {
    return this.seen.flush();
  }

  /** The caller's own tokens, without their secrets. */
  list(actor: Actor): Promise<PersonalTokenView[]> {
    return this.tokensOf(owner(actor));
  }

  /**
   * Only from a login: a token that could make tokens would let whoever steals one make
   * others, of any lifetime, that outlive its deletion. Listing and deleting stay open to
   * tokens, so a script may clean up after itself.
   */
  create(actor: Actor, input: NewPersonalToken): Promise<CreatedPersonalToken> {
    const userId = owner(actor);
    if (actor.kind === "user" && actor.via === "pat") {
      throw noAccess("A personal access token cannot create personal access tokens: log in to create one.");
    }
    return this.issue(actor, userId, input);
  }

  /** Deletes one of the caller's tokens; another user's is not found, as if it did not exist. */
  remove(actor: Actor, id: number): Promise<void> {
    return this.revoke(actor, owner(actor), id);
  }

  async listForServiceAccount(_actor: Actor, accountId: number): Promise<PersonalTokenView[]> {
    return this.tokensOf(await this.serviceAccount(accountId));
  }

  /** Each account's tokens, without their secrets: what service-account listings show. */
  async heldBy(accountIds: readonly number[]): Promise<Map<number, HeldTokenView[]>> {
    const held = new Map<number, HeldTokenView[]>(accountIds.map((id) => [id, []]));
    for (const row of await personalTokenStore.ofUsers(this.db, accountIds)) {
      const { userId: _, ...token } = view(row);
      held.get(row.user_id)?.push(token);
    }
    return held;
  }

  async createForServiceAccount(
    actor: Actor,
    accountId: number,
    input: NewPersonalToken,
  ): Promise<CreatedPersonalToken> {
    return this.issue(actor, await this.serviceAccount(accountId), input);
  }

  async removeForServiceAccount(actor: Actor, accountId: number, tokenId: number): Promise<void> {
    return this.revoke(actor, await this.serviceAccount(accountId), tokenId);
  }

  private async tokensOf(userId: number): Promise<PersonalTokenView[]> {
    return (await personalTokenStore.ofUser(this.db, userId)).map(view);
  }

  /** A service account's id; a person's, or no one's, is not found. */
  private async serviceAccount(id: number): Promise<number> {
    const account = await this.users.find(id);
    if (!account?.is_service) throw notFound(`Could not find service account ${id}`);
    return account.id;
  }

  /** Creates a token and returns its secret: the only time anyone sees it. */
  private issue(actor: Actor, userId: number, input: NewPersonalToken): Promise<CreatedPersonalToken> {
    if (input.description.trim() === "") {
      throw invalidField("description", "PAT description cannot be empty.");
    }
    const expiresAt = new Date(input.expiresAt);
    if (Number.isNaN(expiresAt.getTime())) throw invalidField("expiresAt", "expiresAt must be a date");
    if (expiresAt <= new Date()) throw invalidField("expiresAt", "The expiry date should be in future.");
    return this.events.change(actor, async (change) => {
      if ((await personalTokenStore.count(change.db, userId)) >= LIMIT) {
        throw noAccess(`Too many PATs (${LIMIT}) already exist for this user.`);
      }
      if (await personalTokenStore.describedAs(change.db, userId, input.description)) {
        throw nameExists("PAT description already exists.");
      }
      const secret = `user:${randomBytes(28).toString("hex")}`;
      const row = await personalTokenStore.insert(change.db, {
        user_id: userId,
        description: input.description,
        secret_hash: hash(secret),
        expires_at: expiresAt,
      });
      change.record({ type: "pat-created", data: eventData(row) });
      return { ...view(row), secret };
    });
  }

  private async revoke(actor: Actor, userId: number, id: number): Promise<void> {
    await this.events.change(actor, async (change) => {
      const row = await personalTokenStore.ofUserById(change.db, userId, id);
      if (!row) throw notFound(`Could not find personal access token ${id}`);
      await personalTokenStore.remove(change.db, id);
      change.record({ type: "pat-deleted", preData: eventData(row) });
      change.credentialsChanged();
    });
  }
}
