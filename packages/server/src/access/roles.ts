import {
  ENVIRONMENT_PERMISSIONS,
  type EnvironmentPermission,
  PROJECT_PERMISSIONS,
  type ProjectPermission,
  type RootPermission,
} from "./permissions.js";

/** The reference's ids for its predefined roles: scripts written for it name them so. */
export const ROLE_IDS = { Admin: 1, Editor: 2, Viewer: 3, Owner: 4, Member: 5 } as const;
export type PredefinedRole = keyof typeof ROLE_IDS;

/** Root roles apply everywhere; project roles within the projects a user or group is given them in. */
export type RoleType = "root" | "root-custom" | "project" | "custom";
export const isRootRole = (type: string) => type === "root" || type === "root-custom";

/** What changing a project's flags takes, in every environment: the Member role. */
const MEMBER: readonly (ProjectPermission | EnvironmentPermission)[] = [
  "CREATE_FEATURE",
  "UPDATE_FEATURE",
  "DELETE_FEATURE",
  "UPDATE_FEATURE_VARIANTS",
  "UPDATE_FEATURE_DEPENDENCY",
  "CREATE_FEATURE_STRATEGY",
  "UPDATE_FEATURE_STRATEGY",
  "DELETE_FEATURE_STRATEGY",
  "UPDATE_FEATURE_ENVIRONMENT",
  "UPDATE_FEATURE_ENVIRONMENT_VARIANTS",
];

// Reviewing others' change requests, which the reference leaves to custom roles: without it
// a team must build a role before its first review.
const REVIEWER: readonly EnvironmentPermission[] = ["APPROVE_CHANGE_REQUEST", "APPLY_CHANGE_REQUEST"];

// Skipping change requests is never given by default: a custom role grants it on purpose.
const OWNER = [...PROJECT_PERMISSIONS, ...ENVIRONMENT_PERMISSIONS].filter(
  (permission) => permission !== "SKIP_CHANGE_REQUEST",
);

const EDITOR_ROOT: readonly RootPermission[] = [
  "CREATE_PROJECT",
  "CREATE_ADDON",
  "UPDATE_ADDON",
  "DELETE_ADDON",
  "UPDATE_APPLICATION",
  "CREATE_CONTEXT_FIELD",
  "UPDATE_CONTEXT_FIELD",
  "DELETE_CONTEXT_FIELD",
  "CREATE_STRATEGY",
  "UPDATE_STRATEGY",
  "DELETE_STRATEGY",
  "CREATE_TAG_TYPE",
  "UPDATE_TAG_TYPE",
  "DELETE_TAG_TYPE",
  "CREATE_SEGMENT",
  "UPDATE_SEGMENT",
  "DELETE_SEGMENT",
  "READ_CLIENT_API_TOKEN",
  "CREATE_CLIENT_API_TOKEN",
  "UPDATE_CLIENT_API_TOKEN",
  "DELETE_CLIENT_API_TOKEN",
  "READ_FRONTEND_API_TOKEN",
  "CREATE_FRONTEND_API_TOKEN",
  "UPDATE_FRONTEND_API_TOKEN",
  "DELETE_FRONTEND_API_TOKEN",
  "READ_ROLE",
];

/** A role's permissions: root ones, and those it holds within a project (all environments). */
export interface RolePermissions {
  root: readonly RootPermission[];
  project: readonly (ProjectPermission | EnvironmentPermission)[];
}

/**
 * The predefined roles' permissions. The Editor, as in the reference, changes flags in the
 * `default` project without being its member (see grants.ts for where that holds).
 */
export const PREDEFINED: Record<PredefinedRole, RolePermissions> = {
  Admin: { root: ["ADMIN"], project: [] },
  Editor: { root: EDITOR_ROOT, project: [...MEMBER, ...REVIEWER] },
  Viewer: { root: [], project: [] },
  Owner: { root: [], project: OWNER },
  Member: { root: [], project: MEMBER },
};

/** The project in which a root role's project permissions hold, as in the reference. */
export const ROOT_ROLES_PROJECT = "default";
