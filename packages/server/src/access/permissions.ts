/**
 * The permissions a route or a service can ask for, named as the reference names them so
 * that roles exported from it mean the same here. Root permissions apply everywhere,
 * project permissions within a project, environment permissions within a project's
 * environment.
 */
export const ROOT_PERMISSIONS = [
  "ADMIN",
  "CREATE_ADDON",
  "UPDATE_ADDON",
  "DELETE_ADDON",
  "CREATE_CLIENT_API_TOKEN",
  "READ_CLIENT_API_TOKEN",
  "UPDATE_CLIENT_API_TOKEN",
  "DELETE_CLIENT_API_TOKEN",
  "CREATE_FRONTEND_API_TOKEN",
  "READ_FRONTEND_API_TOKEN",
  "UPDATE_FRONTEND_API_TOKEN",
  "DELETE_FRONTEND_API_TOKEN",
  "UPDATE_APPLICATION",
  "CREATE_CONTEXT_FIELD",
  "UPDATE_CONTEXT_FIELD",
  "DELETE_CONTEXT_FIELD",
  "CREATE_PROJECT",
  "READ_ROLE",
  "CREATE_SEGMENT",
  "UPDATE_SEGMENT",
  "DELETE_SEGMENT",
  "CREATE_STRATEGY",
  "UPDATE_STRATEGY",
  "DELETE_STRATEGY",
  "CREATE_TAG_TYPE",
  "UPDATE_TAG_TYPE",
  "DELETE_TAG_TYPE",
  "READ_LOGS",
  "RELEASE_PLAN_TEMPLATE_CREATE",
  "RELEASE_PLAN_TEMPLATE_UPDATE",
  "RELEASE_PLAN_TEMPLATE_DELETE",
] as const;

export const PROJECT_PERMISSIONS = [
  "CREATE_FEATURE",
  "UPDATE_FEATURE",
  "UPDATE_FEATURE_DEPENDENCY",
  "DELETE_FEATURE",
  "UPDATE_FEATURE_VARIANTS",
  "MOVE_FEATURE_TOGGLE",
  "UPDATE_PROJECT",
  "DELETE_PROJECT",
  "READ_PROJECT_API_TOKEN",
  "CREATE_PROJECT_API_TOKEN",
  "DELETE_PROJECT_API_TOKEN",
  "UPDATE_PROJECT_SEGMENT",
  "PROJECT_USER_ACCESS_READ",
  "PROJECT_USER_ACCESS_WRITE",
  "PROJECT_DEFAULT_STRATEGY_READ",
  "PROJECT_DEFAULT_STRATEGY_WRITE",
  "PROJECT_CHANGE_REQUEST_READ",
  "PROJECT_CHANGE_REQUEST_WRITE",
  "PROJECT_SETTINGS_READ",
  "PROJECT_SETTINGS_WRITE",
] as const;

export const ENVIRONMENT_PERMISSIONS = [
  "CREATE_FEATURE_STRATEGY",
  "UPDATE_FEATURE_STRATEGY",
  "DELETE_FEATURE_STRATEGY",
  "UPDATE_FEATURE_ENVIRONMENT",
  "UPDATE_FEATURE_ENVIRONMENT_VARIANTS",
  "APPROVE_CHANGE_REQUEST",
  "APPLY_CHANGE_REQUEST",
  "SKIP_CHANGE_REQUEST",
] as const;

/**
 * NONE: any caller of the admin API (a person, a personal access token, an admin token)
 * but not an SDK's token: what the reference asks of reads. CLIENT and FRONTEND: the
 * permissions SDK tokens hold.
 */
export const SPECIAL_PERMISSIONS = ["NONE", "CLIENT", "FRONTEND"] as const;

export type RootPermission = (typeof ROOT_PERMISSIONS)[number];
export type ProjectPermission = (typeof PROJECT_PERMISSIONS)[number];
export type EnvironmentPermission = (typeof ENVIRONMENT_PERMISSIONS)[number];
export type Permission =
  | RootPermission
  | ProjectPermission
  | EnvironmentPermission
  | (typeof SPECIAL_PERMISSIONS)[number];

export const PERMISSIONS: readonly Permission[] = [
  ...SPECIAL_PERMISSIONS,
  ...ROOT_PERMISSIONS,
  ...PROJECT_PERMISSIONS,
  ...ENVIRONMENT_PERMISSIONS,
];
