import { createHash } from "node:crypto";
import type { UserActor } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { UserService } from "../users/service.js";
import { sessionStore } from "./store.js";

const hash = (id: string) => createHash("sha256").update(id).digest("hex");

/** Logins that last: stored in the database, so every instance on one PostgreSQL accepts them. */
export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly users: Pick<UserService, "actor">,
  ) {}

  /** The user behind a session cookie, while the session lasts and the user is active. */
  async resolve(id: string): Promise<UserActor | undefined> {
    const session = await sessionStore.active(this.db, hash(id), new Date());
    return session && this.users.actor(session.user_id, "session");
  }
}
