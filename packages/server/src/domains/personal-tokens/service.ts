import { createHash } from "node:crypto";
import type { UserActor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { UserService } from "../users/service.js";
import { personalTokenStore } from "./store.js";

const hash = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** Personal access tokens: a user's own credentials for scripts, acting with exactly their permissions. */
export class PersonalTokenService {
  // Use is remembered in memory and written in batches, never on the request path.
  private readonly seen = new Set<number>();

  constructor(
    private readonly db: Db,
    private readonly users: Pick<UserService, "actor">,
  ) {}

  /** The user behind a token, while it is unexpired and its user active. */
  async resolve(secret: string): Promise<UserActor | undefined> {
    const token = await personalTokenStore.active(this.db, hash(secret), new Date());
    if (!token) return undefined;
    const actor = await this.users.actor(token.user_id, "pat");
    if (actor) this.seen.add(token.id);
    return actor;
  }

  async flushSeen(): Promise<void> {
    if (this.seen.size === 0) return;
    const ids = [...this.seen];
    this.seen.clear();
    await personalTokenStore.markSeen(this.db, ids, new Date());
  }
}
