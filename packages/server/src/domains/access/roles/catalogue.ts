import {
  ENVIRONMENT_PERMISSIONS,
  type EnvironmentPermission,
  PROJECT_PERMISSIONS,
  type ProjectPermission,
  ROOT_PERMISSIONS,
  type RootPermission,
} from "../../../access/permissions.js";

/** Where a permission holds, as the reference's catalogue names it. */
export type PermissionKind = "root" | "project" | "environment";

export interface CataloguedPermission {
  /**
   * The position in the catalogue. The reference numbers permissions from a table; roles are
   * written here by permission name, so the number only labels a listing.
   */
  id: number;
  name: RootPermission | ProjectPermission | EnvironmentPermission;
  displayName: string;
  kind: PermissionKind;
}

const DISPLAY_NAMES: Record<CataloguedPermission["name"], string> = {
  ADMIN: "Administer everything",
  CREATE_ADDON: "Create integrations",
  UPDATE_ADDON: "Change integrations",
  DELETE_ADDON: "Delete integrations",
  CREATE_CLIENT_API_TOKEN: "Create backend API tokens",
  READ_CLIENT_API_TOKEN: "See backend API tokens",
  UPDATE_CLIENT_API_TOKEN: "Change backend API tokens",
  DELETE_CLIENT_API_TOKEN: "Delete backend API tokens",
  CREATE_FRONTEND_API_TOKEN: "Create frontend API tokens",
  READ_FRONTEND_API_TOKEN: "See frontend API tokens",
  UPDATE_FRONTEND_API_TOKEN: "Change frontend API tokens",
  DELETE_FRONTEND_API_TOKEN: "Delete frontend API tokens",
  UPDATE_APPLICATION: "Change applications",
  CREATE_CONTEXT_FIELD: "Create context fields",
  UPDATE_CONTEXT_FIELD: "Change context fields",
  DELETE_CONTEXT_FIELD: "Delete context fields",
  RELEASE_PLAN_TEMPLATE_CREATE: "Create release templates",
  RELEASE_PLAN_TEMPLATE_UPDATE: "Change and archive release templates",
  RELEASE_PLAN_TEMPLATE_DELETE: "Delete release templates",
  CREATE_PROJECT: "Create projects",
  READ_ROLE: "See roles and their permissions",
  CREATE_SEGMENT: "Create segments",
  UPDATE_SEGMENT: "Change segments",
  DELETE_SEGMENT: "Delete segments",
  CREATE_STRATEGY: "Create strategy definitions",
  UPDATE_STRATEGY: "Change strategy definitions",
  DELETE_STRATEGY: "Delete strategy definitions",
  CREATE_TAG_TYPE: "Create tag types",
  UPDATE_TAG_TYPE: "Change tag types",
  DELETE_TAG_TYPE: "Delete tag types",
  READ_LOGS: "Read the instance's logs",
  CREATE_FEATURE: "Create feature flags",
  UPDATE_FEATURE: "Change feature flags",
  UPDATE_FEATURE_DEPENDENCY: "Change feature flag dependencies",
  DELETE_FEATURE: "Archive and delete feature flags",
  UPDATE_FEATURE_VARIANTS: "Change feature flag variants",
  MOVE_FEATURE_TOGGLE: "Move feature flags to another project",
  UPDATE_PROJECT: "Change the project",
  DELETE_PROJECT: "Archive and delete the project",
  READ_PROJECT_API_TOKEN: "See the project's API tokens",
  CREATE_PROJECT_API_TOKEN: "Create API tokens for the project",
  DELETE_PROJECT_API_TOKEN: "Delete the project's API tokens",
  UPDATE_PROJECT_SEGMENT: "Change the project's segments",
  PROJECT_USER_ACCESS_READ: "See who has access to the project",
  PROJECT_USER_ACCESS_WRITE: "Give and take away access to the project",
  PROJECT_DEFAULT_STRATEGY_READ: "See the project's default strategies",
  PROJECT_DEFAULT_STRATEGY_WRITE: "Change the project's default strategies",
  PROJECT_CHANGE_REQUEST_READ: "See the project's change request settings",
  PROJECT_CHANGE_REQUEST_WRITE: "Change the project's change request settings",
  PROJECT_SETTINGS_READ: "See the project's settings",
  PROJECT_SETTINGS_WRITE: "Change the project's settings",
  CREATE_FEATURE_STRATEGY: "Add activation strategies",
  UPDATE_FEATURE_STRATEGY: "Change activation strategies",
  DELETE_FEATURE_STRATEGY: "Remove activation strategies",
  UPDATE_FEATURE_ENVIRONMENT: "Turn feature flags on and off",
  UPDATE_FEATURE_ENVIRONMENT_VARIANTS: "Change a feature flag's variants in the environment",
  APPROVE_CHANGE_REQUEST: "Approve change requests",
  APPLY_CHANGE_REQUEST: "Apply change requests",
  SKIP_CHANGE_REQUEST: "Change without a change request",
};

/** Every permission a role can hold, root ones first, then project, then environment. */
export const CATALOGUE: readonly CataloguedPermission[] = [
  ...ROOT_PERMISSIONS.map((name) => ({ name, kind: "root" as const })),
  ...PROJECT_PERMISSIONS.map((name) => ({ name, kind: "project" as const })),
  ...ENVIRONMENT_PERMISSIONS.map((name) => ({ name, kind: "environment" as const })),
].map((entry, index) => ({ ...entry, id: index + 1, displayName: DISPLAY_NAMES[entry.name] }));

const byName = new Map<string, CataloguedPermission>(CATALOGUE.map((entry) => [entry.name, entry]));

export const catalogued = (name: string): CataloguedPermission | undefined => byName.get(name);

// ADMIN is the Admin role's alone: a custom role holding it would be a second Admin under
// another name, and one an admin could not tell apart from a lesser role in a listing.
export const GRANTABLE: readonly CataloguedPermission[] = CATALOGUE.filter((entry) => entry.name !== "ADMIN");

/** The catalogue's entry for a permission a custom role may hold. */
export const grantable = (name: string): CataloguedPermission | undefined =>
  name === "ADMIN" ? undefined : byName.get(name);
