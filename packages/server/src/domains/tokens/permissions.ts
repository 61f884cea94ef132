import type { TokenType } from "../../access/actor.js";
import type { Permission } from "../../access/permissions.js";

type Operation = "create" | "read" | "update" | "delete";

/**
 * What each operation on a token asks, by the token's type: SDK tokens have permissions of
 * their own, while an admin token can only be handled by an admin.
 */
export const TOKEN_PERMISSIONS: Record<Operation, Record<TokenType, Permission>> = {
  create: { client: "CREATE_CLIENT_API_TOKEN", frontend: "CREATE_FRONTEND_API_TOKEN", admin: "ADMIN" },
  read: { client: "READ_CLIENT_API_TOKEN", frontend: "READ_FRONTEND_API_TOKEN", admin: "ADMIN" },
  update: { client: "UPDATE_CLIENT_API_TOKEN", frontend: "UPDATE_FRONTEND_API_TOKEN", admin: "ADMIN" },
  delete: { client: "DELETE_CLIENT_API_TOKEN", frontend: "DELETE_FRONTEND_API_TOKEN", admin: "ADMIN" },
};

/** What a route asks before the service knows the token's type: any one of the operation's permissions. */
export const anyTokenPermission = (operation: Operation): Permission[] =>
  Object.values(TOKEN_PERMISSIONS[operation]);
