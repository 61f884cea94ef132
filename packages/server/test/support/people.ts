import { randomBytes } from "node:crypto";
import { randomPassword } from "../../src/domains/users/passwords.js";
import type { TestServer } from "./server.js";

export type RootRole = "Admin" | "Editor" | "Viewer" | number;

export interface CreatedUser {
  id: number;
  username: string;
  password: string;
}

let made = 0;

/** A person with a password, made through the user-admin API with the admin token. */
export async function createUser(
  server: TestServer,
  user: { rootRole: RootRole; username?: string; email?: string; name?: string },
): Promise<CreatedUser> {
  made += 1;
  const username = user.username ?? `person-${made}-${randomBytes(3).toString("hex")}`;
  const password = randomPassword();
  const reply = await server.request("/api/admin/user-admin", {
    method: "POST",
    body: { ...user, username, password },
  });
  if (reply.status !== 201)
    throw new Error(`creating ${username}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { id: reply.body.id, username, password };
}

/** Logs in and returns the `cookie` header that carries the session: `unleash-session=…`. */
export async function login(server: TestServer, username: string, password: string): Promise<string> {
  const reply = await server.request("/auth/simple/login", {
    method: "POST",
    token: null,
    body: { username, password },
  });
  const cookie = reply.headers.get("set-cookie");
  if (reply.status !== 200 || !cookie) {
    throw new Error(`logging in as ${username}: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return cookie.split(";")[0]!;
}

/** The session cookie of a new user with the root role. */
export async function sessionOf(server: TestServer, rootRole: RootRole): Promise<string> {
  const user = await createUser(server, { rootRole });
  return login(server, user.username, user.password);
}
