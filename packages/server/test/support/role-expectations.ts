// What the predefined roles hold, written out from the reference's role descriptions rather
// than read from the code under test, so that the permission tests notice a change to a role.

/** The Editor's root permissions. */
export const EDITOR_ROOT = new Set([
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
]);

/** Changing flags, in every environment: the Member role, and the Editor's in `default`. */
export const MEMBER = new Set([
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
]);

/** Everything in a project but skipping change requests. */
