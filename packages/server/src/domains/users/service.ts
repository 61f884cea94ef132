import type { UserActor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { GrantsService } from "../access/grants/service.js";
import type { EventService } from "../events/service.js";
import { type UserRow, userStore } from "./store.js";

/** What events and the API show for a user: the username, else the email, else the name. */
export const displayName = (user: Pick<UserRow, "username" | "email" | "name">): string =>
  user.username ?? user.email ?? user.name ?? "unknown";

/** People and service accounts, and who they are when they act. */
export class UserService {
  // Use is remembered in memory and written in batches, never on the request path.
  private readonly seen = new Set<number>();

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly grants: Pick<GrantsService, "of">,
  ) {}

  /** A user or service account by id, active or not. */
  find(id: number): Promise<UserRow | undefined> {
    return userStore.byId(this.db, id);
  }

  /** The user as an actor, when they exist and are active: how sessions and tokens act. */
  async actor(userId: number, via: UserActor["via"]): Promise<UserActor | undefined> {
    const user = await userStore.byId(this.db, userId);
    if (!user?.is_active) return undefined;
    this.seen.add(user.id);
    return {
      kind: "user",
      userId: user.id,
      name: displayName(user),
      via,
      grants: await this.grants.of(user.id),
    };
  }

  async flushSeen(): Promise<void> {
    if (this.seen.size === 0) return;
    const ids = [...this.seen];
    this.seen.clear();
    await userStore.markSeen(this.db, ids, new Date());
  }
}
