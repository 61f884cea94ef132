import { createHash, randomBytes } from "node:crypto";
import { ApiError, invalidField, nameExists, notFound, validationError } from "@signalbox/protocol";
import { type Actor, system, type UserActor } from "../../access/actor.js";
import { isRootRole, ROLE_IDS } from "../../access/roles.js";
import type { Db } from "../../db/connection.js";
import { LastSeen } from "../../shared/last-seen.js";
import type { RoleService } from "../access/roles/service.js";
import type { EnvironmentService } from "../environments/service.js";
import type { Change, EventService } from "../events/service.js";
import type { UserEventData } from "./events.js";
import {
  hashPassword,
  randomPassword,
  requireStrongPassword,
  unmatchableHash,
  verifyPassword,
} from "./passwords.js";
import { grantedPermissions } from "./permissions.js";
import type {
  Me,
  PasswordChange,
  PersonView,
  Profile,
  ResetTokenUser,
  RootRoleView,
  UserChanges,
  UserView,
} from "./schemas.js";
import { type UserRow, userStore } from "./store.js";

/** A user as stored: what sessions, tokens and grants are handed when they find one. */
export type { UserRow };

/** What events and the API show for a user: the username, else the email, else the name. */
export const displayName = (user: Pick<UserRow, "username" | "email" | "name">): string =>
  user.username ?? user.email ?? user.name ?? "unknown";

const hash = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** People log in; service accounts act through their tokens only. Each has its own API. */
export type AccountKind = "person" | "service";

export interface NewAccount {
  name?: string;
  email?: string;
  username?: string;
  rootRole: number | string;
  password?: string;
  isService?: boolean;
}

const RESET_LINK_HOURS = 24;

export const userView = (row: UserRow): UserView => ({
  id: row.id,
  name: row.name,
  username: row.username,
  ...(row.email === null ? {} : { email: row.email }),
  ...(row.image_url === null ? {} : { imageUrl: row.image_url }),
  rootRole: row.root_role_id,
  accountType: row.is_service ? "Service Account" : "User",
  isActive: row.is_active,
  isAPI: false,
  createdAt: row.created_at.toISOString(),
  seenAt: row.seen_at?.toISOString() ?? null,
});

const eventData = (row: UserRow): UserEventData => ({
  id: row.id,
  name: row.name,
  username: row.username,
  email: row.email,
  rootRole: row.root_role_id,
  isActive: row.is_active,
});

const kindOf = (row: UserRow): AccountKind => (row.is_service ? "service" : "person");

const EVENTS = {
  person: { created: "user-created", updated: "user-updated", deleted: "user-deleted" },
  service: {
    created: "service-account-created",
    updated: "service-account-updated",
    deleted: "service-account-deleted",
  },
} as const;

const missing = (kind: AccountKind, id: number | string) =>
  notFound(`Could not find ${kind === "person" ? "user" : "service account"} ${id}`);

const wrongPassword = () =>
  new ApiError(
    "PasswordMismatch",
    "The old password is wrong. If you have forgotten it, ask an administrator for a reset link.",
  );

const invalidResetLink = () =>
  new ApiError(
    "InvalidTokenError",
    "This reset link is unknown, already used or expired: ask for a new one.",
  );

/**
 * What those who hold credentials for a user do when the user's credentials change (a new
 * password, deactivation), inside the transaction that changes them: sessions end there.
 * `keepSession` is the session the change was made from, which goes on.
 */
export type CredentialsListener = (change: Change, userId: number, keepSession?: string) => Promise<void>;

/** People and service accounts: who they are, their passwords, and who they are when they act. */
export class UserService {
  private readonly seen = new LastSeen((ids, at) => userStore.markSeen(this.db, ids, at));
  private readonly credentialListeners: CredentialsListener[] = [];

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly others: {
      environments: Pick<EnvironmentService, "list">;
      roles: Pick<RoleService, "list">;
    },
  ) {}

  /** Starts writing `seenAt` every `flushMs`. */
  start(flushMs: number): void {
    this.seen.start(flushMs);
  }

  stop(): Promise<void> {
    return this.seen.stop();
  }

  /** Hears of every change of a user's credentials, in its transaction. */
  onCredentialsChanged(listener: CredentialsListener): void {
    this.credentialListeners.push(listener);
  }

  /** A user or service account by id, active or not. */
  find(id: number): Promise<UserRow | undefined> {
    return userStore.byId(this.db, id);
  }

  /**
   * The users among `ids`, as listings of groups and project members show them; `db` is the
   * caller's transaction when it has one.
   */
  async byIds(db: Db, ids: readonly number[]): Promise<PersonView[]> {
    return (await userStore.byIds(db, ids)).map(({ image_url, ...person }) => ({
      ...person,
      imageUrl: image_url,
    }));
  }

  /** The ids among `ids` that are not users. */
  async missing(db: Db, ids: readonly number[]): Promise<number[]> {
    const known = new Set((await userStore.byIds(db, ids)).map((user) => user.id));
    return ids.filter((id) => !known.has(id));
  }

  /** How many users have the role as their root role. */
  withRootRole(db: Db, roleId: number): Promise<number> {
    return userStore.withRootRole(db, roleId);
  }

  async findByEmail(email: string): Promise<UserView | undefined> {
    const row = await userStore.byEmail(this.db, email);
    return row && userView(row);
  }

  /**
   * The user when they exist and are active, remembered as seen: whom a session, a personal
   * access token or a schedule acts as. What they may do is project access's to say (grants).
   */
  async acting(userId: number): Promise<UserRow | undefined> {
    const user = await userStore.byId(this.db, userId);
    if (!user?.is_active) return undefined;
    this.seen.mark(user.id);
    return user;
  }

  /** The active people, not service accounts. */
  async activePeople(): Promise<UserRow[]> {
    return (await userStore.list(this.db, false)).filter((row) => row.is_active);
  }

  /**
   * The person a username (or email) and password name, if they may log in with it. Always
   * checks a password, against a hash no password matches when there is none to check, so an
   * unknown user takes as long to refuse as a wrong password.
   */
  async authenticate(login: string, password: string): Promise<UserView | undefined> {
    const row = await userStore.byLogin(this.db, login);
    const usable = row?.is_active && !row.is_service && row.password_hash !== null ? row : undefined;
    const matches = await verifyPassword(password, usable?.password_hash ?? (await unmatchableHash()));
    return usable && matches ? userView(usable) : undefined;
  }

  /** Records a login as the user's last use. */
  async loggedIn(userId: number): Promise<void> {
    await userStore.markSeen(this.db, [userId], new Date());
  }

  async me(actor: UserActor): Promise<Me> {
    const row = await this.require(this.db, actor.userId);
    const { isAPI: _, ...user } = userView(row);
    const environments = async () =>
      (await this.others.environments.list(actor)).map((environment) => environment.name);
    return {
      user,
      permissions: await grantedPermissions(actor.grants, environments),
      feedback: [],
      splash: {},
    };
  }

  /** Their root role by name, which `me` gives as an id only, and the projects they are a member of. */
  async profile(actor: UserActor): Promise<Profile> {
    const row = await this.require(this.db, actor.userId);
    const rootRole = (await this.rootRoles(actor)).find((role) => role.id === row.root_role_id)!;
    return { rootRole, projects: [...actor.grants.projects.keys()].sort() };
  }

  /** The roles a user can be given as their root role. */
  async rootRoles(actor: Actor): Promise<RootRoleView[]> {
    return (await this.others.roles.list(actor)).filter((role) => isRootRole(role.type));
  }

  async list(_actor: Actor, kind: AccountKind = "person"): Promise<UserView[]> {
    return (await userStore.list(this.db, kind === "service")).map(userView);
  }

  async get(_actor: Actor, id: number, kind: AccountKind = "person"): Promise<UserView> {
    return userView(await this.require(this.db, id, kind));
  }

  /** A person, or with `isService` a service account; a password must pass the policy. */
  async create(actor: Actor, input: NewAccount): Promise<UserView> {
    if (!input.username && !input.email) {
      throw validationError(
        input.isService ? "A service account needs a username." : "A user needs a username or an email.",
      );
    }
    const rootRole = await this.rootRole(actor, input.rootRole);
    const passwordHash = await this.hashOf(input);
    return this.events.change(actor, async (change) => {
      const row = await this.add(change, input, rootRole, passwordHash);
      if (!row) throw nameExists(`A user with the username or email ${input.username ?? input.email} exists`);
      return userView(row);
    });
  }

  async update(
    actor: Actor,
    id: number,
    changes: UserChanges,
    kind: AccountKind = "person",
  ): Promise<UserView> {
    // Roles are read before the transaction: on the embedded database it holds the only connection.
    const rootRole =
      changes.rootRole === undefined ? undefined : await this.rootRole(actor, changes.rootRole);
    return this.events.change(actor, async (change) => {
      const before = await this.require(change.db, id, kind);
      if (changes.email !== undefined && (await userStore.taken(change.db, [changes.email], id))) {
        throw nameExists(`A user with the username or email ${changes.email} exists`);
      }
      const deactivating = changes.isActive === false && before.is_active;
      if (deactivating && actor.kind === "user" && actor.userId === id) {
        throw validationError("You cannot deactivate yourself: ask another admin.");
      }
      if (deactivating) await this.keepAnAdmin(change.db, before, "deactivate");
      else if (rootRole !== undefined && rootRole !== ROLE_IDS.Admin) {
        await this.keepAnAdmin(change.db, before, "take the Admin role from");
      }
      await userStore.update(change.db, id, {
        name: changes.name,
        email: changes.email,
        root_role_id: rootRole,
        is_active: changes.isActive,
      });
      if (deactivating) await this.credentialsChanged(change, id);
      const after = await this.require(change.db, id);
      change.record({ type: EVENTS[kind].updated, data: eventData(after), preData: eventData(before) });
      return userView(after);
    });
  }

  /** Deletes the account with its sessions, tokens and memberships: its credentials stop working at once. */
  async remove(actor: Actor, id: number, kind: AccountKind = "person"): Promise<void> {
    if (actor.kind === "user" && actor.userId === id) {
      throw validationError("You cannot delete yourself: ask another admin.");
    }
    await this.events.change(actor, async (change) => {
      const before = await this.require(change.db, id, kind);
      await this.keepAnAdmin(change.db, before, "delete");
      await userStore.remove(change.db, id);
      change.credentialsChanged();
      change.record({ type: EVENTS[kind].deleted, preData: eventData(before) });
    });
  }

  /** An admin sets a person's password: their sessions and reset links end. */
  async setPassword(actor: Actor, id: number, password: string): Promise<void> {
    requireStrongPassword(password);
    const passwordHash = await hashPassword(password);
    await this.events.change(actor, async (change) => {
      await this.require(change.db, id, "person");
      await this.replacePassword(change, id, passwordHash);
    });
  }

  /**
   * A user changes their own password, proving it with the old one. Their other sessions end;
   * the one they are using (`currentSession`) goes on.
   */
  async changeOwnPassword(actor: UserActor, input: PasswordChange, currentSession?: string): Promise<void> {
    if (input.password !== input.confirmPassword) {
      throw invalidField("confirmPassword", "The new password and its confirmation differ.");
    }
    requireStrongPassword(input.password);
    const row = await this.require(this.db, actor.userId);
    const current = row.password_hash ?? (await unmatchableHash());
    if (!(await verifyPassword(input.oldPassword, current))) throw wrongPassword();
    const passwordHash = await hashPassword(input.password);
    await this.events.change(actor, (change) =>
      this.replacePassword(change, row.id, passwordHash, currentSession),
    );
  }

  /** Checks a password against the policy without storing anything. */
  validatePassword(password: string): void {
    requireStrongPassword(password);
  }

  /** A one-time secret that lets a person set a new password, for a day; only its hash is kept. */
  async createResetToken(actor: Actor, who: string): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    await this.events.change(actor, async (change) => {
      const row = /^\d{1,9}$/.test(who)
        ? await userStore.byId(change.db, Number(who))
        : await userStore.byLogin(change.db, who);
      if (!row || row.is_service) throw missing("person", who);
      const expiresAt = new Date(Date.now() + RESET_LINK_HOURS * 3_600_000);
      await userStore.insertResetToken(change.db, row.id, hash(token), expiresAt);
    });
    return token;
  }

  /** Whom a reset link is for, while it is unused and unexpired. */
  async resetTokenUser(token: string): Promise<ResetTokenUser> {
    const userId = await userStore.resetTokenUser(this.db, hash(token), new Date());
    const row = userId === undefined ? undefined : await userStore.byId(this.db, userId);
    if (!row) throw invalidResetLink();
    // A user's root role is one of these: the column references roles, and only root roles are given.
    const role = (await this.rootRoles(system())).find((candidate) => candidate.id === row.root_role_id)!;
    return { id: row.id, name: row.name, email: row.email, token, createdBy: null, role };
  }

  /** Sets a new password with a reset link, which is then used up with every other. */
  async resetPassword(token: string, password: string): Promise<void> {
    requireStrongPassword(password);
    const passwordHash = await hashPassword(password);
    await this.events.change(system("password reset"), async (change) => {
      const userId = await userStore.claimResetToken(change.db, hash(token), new Date());
      if (userId === undefined) throw invalidResetLink();
      await this.replacePassword(change, userId, passwordHash);
    });
  }

  /**
   * Creates the first admin when there are no people yet. Their password skips the policy when
   * given (the operator chose it); when not, a random one is made and returned, to be shown once.
   */
  async bootstrapAdmin(given?: {
    username: string;
    password: string;
  }): Promise<{ username: string; password: string } | undefined> {
    if ((await userStore.countPeople(this.db)) > 0) return undefined;
    const credentials = given ?? { username: "admin", password: randomPassword() };
    const passwordHash = await hashPassword(credentials.password);
    // Another instance starting on the same database may win the race: then there is nothing to show.
    const created = await this.events.change(system(), (change) =>
      this.add(change, { username: credentials.username }, ROLE_IDS.Admin, passwordHash),
    );
    return created && !given ? credentials : undefined;
  }

  /** A new account's password hash, made before its transaction: hashing takes a while. */
  private async hashOf(input: NewAccount): Promise<string | null> {
    if (input.password === undefined) return null;
    if (input.isService) {
      throw invalidField("password", "A service account has no password: it acts through its tokens.");
    }
    requireStrongPassword(input.password);
    return hashPassword(input.password);
  }

  /** Inserts an account and records it; undefined when its username or email is taken. */
  private async add(
    change: Change,
    input: Omit<NewAccount, "password" | "rootRole">,
    rootRole: number,
    passwordHash: string | null,
  ): Promise<UserRow | undefined> {
    const kind: AccountKind = input.isService ? "service" : "person";
    const names = [input.username, input.email].filter((name): name is string => name !== undefined);
    if (await userStore.taken(change.db, names)) return undefined;
    const id = await userStore.insert(change.db, {
      name: input.name ?? null,
      username: input.username ?? null,
      email: input.email ?? null,
      image_url: null,
      root_role_id: rootRole,
      is_service: kind === "service",
      password_hash: passwordHash,
    });
    if (id === undefined) return undefined;
    const row = await this.require(change.db, id);
    change.record({ type: EVENTS[kind].created, data: eventData(row) });
    return row;
  }

  private async replacePassword(change: Change, userId: number, passwordHash: string, keepSession?: string) {
    await userStore.update(change.db, userId, { password_hash: passwordHash });
    await userStore.useResetTokens(change.db, userId, new Date());
    await this.credentialsChanged(change, userId, keepSession);
  }

  /** Tells those who hold credentials for the user, and every instance's caches. */
  private async credentialsChanged(change: Change, userId: number, keepSession?: string) {
    for (const listener of this.credentialListeners) await listener(change, userId, keepSession);
    change.credentialsChanged();
  }

  /** A root role by id or by name, whatever its case. */
  private async rootRole(actor: Actor, ref: number | string): Promise<number> {
    const roles = await this.rootRoles(actor);
    const role = roles.find((candidate) =>
      typeof ref === "number" ? candidate.id === ref : candidate.name.toLowerCase() === ref.toLowerCase(),
    );
    if (!role) {
      const names = roles.map((candidate) => candidate.name).join(", ");
      throw invalidField("rootRole", `There is no root role ${ref}: the root roles are ${names}.`);
    }
    return role.id;
  }

  /** Refuses to leave the instance without an active person holding the Admin role. */
  private async keepAnAdmin(db: Db, user: UserRow, action: string): Promise<void> {
    if (user.is_service || !user.is_active || user.root_role_id !== ROLE_IDS.Admin) return;
    const admins = await userStore.lockAdmins(db);
    if (admins.every((id) => id === user.id)) {
      throw validationError(
        `You cannot ${action} ${displayName(user)}: they are the last active admin. Make someone else an admin first.`,
      );
    }
  }

  private async require(db: Db, id: number, kind?: AccountKind): Promise<UserRow> {
    const row = await userStore.byId(db, id);
    if (!row || (kind !== undefined && kindOf(row) !== kind)) throw missing(kind ?? "person", id);
    return row;
  }
}
