import type { Grants } from "./grants.js";

/** The kinds of API token; `backend` is the reference's newer name for `client`. */
export type TokenType = "client" | "frontend" | "admin";

/**
 * Who is calling, as authentication found it. Services take it on every call that reads or
 * writes admin data: it decides what they may do and is what their events record.
 */
export type Actor =
  | {
      kind: "token";
      tokenId: number;
      /** The token's name, recorded as the author of what it does. */
      name: string;
      type: TokenType;
      projects: string[];
      environment: string;
    }
  | {
      kind: "user";
      userId: number;
      /** What events record as the author: the username, else the email, else the name. */
      name: string;
      /** A session from a login, or a personal access token (a service account's too). */
      via: "session" | "pat";
      grants: Grants;
    }
  | { kind: "system"; name: string };

/** The user ids the reference records for authors that are not users. */
export const SYSTEM_USER_ID = -1337;
export const ADMIN_TOKEN_USER_ID = -42;

/** Scheduled jobs, start-up bootstrapping and imports act as the system. */
export const system = (name = "system"): Actor => ({ kind: "system", name });

export const actorName = (actor: Actor): string => actor.name;

/** The user id events record: the user's own, the reference's marks for the system and admin tokens, none for SDK tokens. */
export function actorUserId(actor: Actor): number | null {
  if (actor.kind === "user") return actor.userId;
  if (actor.kind === "system") return SYSTEM_USER_ID;
  return actor.type === "admin" ? ADMIN_TOKEN_USER_ID : null;
}

/** An API token acting: the only kind of actor the SDK and frontend APIs admit. */
export type TokenActor = Extract<Actor, { kind: "token" }>;
export type UserActor = Extract<Actor, { kind: "user" }>;
