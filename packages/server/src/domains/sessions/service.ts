import { createHash, randomBytes } from "node:crypto";
import { ApiError } from "@signalbox/protocol";
import { system } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { EventService } from "../events/service.js";
import type { UserView } from "../users/schemas.js";
import type { UserRow, UserService } from "../users/service.js";
import { FailureWindow } from "./failures.js";
import { sessionStore } from "./store.js";

const hash = (id: string) => createHash("sha256").update(id).digest("hex");

export interface Session {
  /** The cookie's value: a bearer secret, shown to the browser only. */
  id: string;
  expiresAt: Date;
}

export interface SessionSettings {
  ttlHours: number;
  /** Failed logins for one login name from one address in a minute before they must wait. */
  failuresPerMinute: number;
}

/** Too many failed logins: the answer says when to try again (`Retry-After`). */
export class LoginRateLimited extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      "RateLimitError",
      `Too many failed logins for this user from your address: try again in ${retryAfterSeconds} seconds.`,
    );
  }
}

// One answer for every failure, so that it never tells whether the user exists.
const mismatch = () =>
  new ApiError(
    "PasswordMismatch",
    "The username or password is wrong. If you have forgotten your password, ask an administrator for a reset link.",
  );

/**
 * Logins that last: stored in the database, so every instance on one PostgreSQL accepts them.
 * A user's sessions end when their password changes or they are deactivated, in the same
 * transaction: users say when, sessions listen.
 */
export class SessionService {
  private readonly failures: FailureWindow;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly users: Pick<
      UserService,
      "acting" | "authenticate" | "loggedIn" | "onCredentialsChanged"
    >,
    private readonly settings: SessionSettings,
  ) {
    this.failures = new FailureWindow(settings.failuresPerMinute, 60_000);
    users.onCredentialsChanged((change, userId, keep) =>
      sessionStore.removeForUser(change.db, userId, keep === undefined ? undefined : hash(keep)),
    );
  }

  /** Deletes expired sessions every `intervalMs`; they are refused anyway, this keeps the table small. */
  start(intervalMs: number): void {
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), intervalMs);
    this.sweeper.unref();
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  sweep(): Promise<void> {
    return sessionStore.removeExpired(this.db, new Date());
  }

  /**
   * The user behind a session cookie, while the session lasts and the user is active; what
   * they may do is project access's to say (grants), a layer up.
   */
  async resolve(id: string): Promise<UserRow | undefined> {
    const session = await sessionStore.active(this.db, hash(id), new Date());
    return session && this.users.acting(session.user_id);
  }

  /** A new session for a user who has proved who they are (by password, or by single sign-on). */
  async create(userId: number): Promise<Session> {
    const id = randomBytes(32).toString("base64url");
    const expiresAt = new Date(Date.now() + this.settings.ttlHours * 3_600_000);
    await sessionStore.insert(this.db, hash(id), userId, expiresAt);
    await this.users.loggedIn(userId);
    return { id, expiresAt };
  }

  /**
   * A login by username (or email) and password, from an address. Failures are limited per
   * login name and address, a name no user has as one a user has: a guesser locks out the
   * name they guess from where they are, never the others behind the same address. Every
   * failure looks the same and takes as long.
   */
  async login(
    username: string,
    password: string,
    address: string,
  ): Promise<{ user: UserView; session: Session }> {
    // Names are matched whatever their case, so they are counted whatever their case.
    const key = `${address} ${username.toLowerCase()}`;
    const wait = this.failures.wait(key);
    // Counted before the password is checked, so that attempts made at the same time cannot
    // all slip under the limit; taken back when it succeeds.
    if (wait === 0) this.failures.attempt(key);
    // Checked even when limited: a refusal takes as long as a wrong password, and a right one
    // is refused too, so that a guesser learns nothing while they wait.
    const user = await this.users.authenticate(username, password);
    if (wait > 0) throw new LoginRateLimited(Math.ceil(wait / 1000));
    if (!user) throw mismatch();
    this.failures.forgive(key);
    return { user, session: await this.create(user.id) };
  }

  /** Ends the session the cookie names; an unknown or expired one is already over. */
  async logout(id: string): Promise<void> {
    await this.events.change(system("logout"), async (change) => {
      await sessionStore.remove(change.db, hash(id));
      change.credentialsChanged();
    });
  }
}
