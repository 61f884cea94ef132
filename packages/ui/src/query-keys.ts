/**
 * Every key the UI caches the service's answers under, one factory a resource. A key starts
 * with its resource's root and narrows from there, so invalidating a shorter key refreshes
 * everything under it: `project(id)` covers that project's flag pages, access, insights and
 * flag names; `changeRequests.all()` every screen that shows change requests.
 */
export const queryKeys = {
  session: {
    /** The person logged in and their permissions. */
    me: () => ["me"] as const,
    loginOptions: () => ["login-options"] as const,
    passwordPolicy: (typed: string) => ["password-policy", typed] as const,
    profile: () => ["profile"] as const,
    personalTokens: () => ["personal-tokens"] as const,
  },
  projects: {
    list: () => ["projects"] as const,
    detail: (projectId: string) => ["project", projectId] as const,
    flags: (projectId: string) => ["project", projectId, "flags"] as const,
    flagsPage: (projectId: string, offset: number) => ["project", projectId, "flags", offset] as const,
    flagNames: (projectId: string) => ["project", projectId, "flag-names"] as const,
    access: (projectId: string) => ["project", projectId, "access"] as const,
    insights: (projectId: string) => ["project", projectId, "insights"] as const,
    healthReport: (projectId: string) => ["project", projectId, "health-report"] as const,
  },
  flags: {
    all: () => ["flag"] as const,
    ofProject: (projectId: string) => ["flag", projectId] as const,
    detail: (projectId: string, featureName: string) => ["flag", projectId, featureName] as const,
    lifecycle: (projectId: string, featureName: string) =>
      ["flag", projectId, featureName, "lifecycle"] as const,
    /** Whether a new flag's name is free and well-formed. */
    nameCheck: (name: string) => ["flag-name", name] as const,
    search: (typed: string) => ["search", "features", typed] as const,
    metrics: (featureName: string, hours: number) => ["client-metrics", featureName, hours] as const,
    /** Under the flag's key: a change to the flag is a new version. */
    versions: (projectId: string, featureName: string) =>
      ["flag", projectId, featureName, "versions"] as const,
    restorePreview: (projectId: string, featureName: string, eventId: number, environment: string) =>
      ["flag", projectId, featureName, "versions", eventId, environment] as const,
    /** Under the flag's key: whatever refreshes the flag refreshes its release plans and safeguards. */
    releasePlans: (projectId: string, featureName: string, environment: string) =>
      ["flag", projectId, featureName, "release-plans", environment] as const,
    safeguards: (projectId: string, featureName: string, environment: string) =>
      ["flag", projectId, featureName, "safeguards", environment] as const,
    /** The impact metric charts on the flag (their data is under `impactMetrics.series`). */
    impactCharts: (projectId: string, featureName: string) =>
      ["flag", projectId, featureName, "impact-charts"] as const,
  },
  releaseTemplates: {
    all: () => ["release-templates"] as const,
    list: (includeArchived: boolean) => ["release-templates", includeArchived] as const,
    detail: (id: string) => ["release-templates", "detail", id] as const,
  },
  impactMetrics: {
    all: () => ["impact-metrics"] as const,
    metadata: () => ["impact-metrics", "metadata"] as const,
    series: (query: object) => ["impact-metrics", "series", query] as const,
  },
  changeRequests: {
    all: () => ["change-requests"] as const,
    config: (projectId: string) => ["change-requests", projectId, "config"] as const,
    detail: (projectId: string, id: number) => ["change-requests", projectId, "request", id] as const,
    ofProject: (projectId: string) => ["change-requests", projectId, "all"] as const,
    pending: (projectId: string) => ["change-requests", projectId, "pending"] as const,
    reviewers: (projectId: string, environment: string) =>
      ["change-requests", projectId, "reviewers", environment] as const,
    search: (query: object) => ["change-requests", "search", query] as const,
  },
  environments: { list: () => ["environments"] as const },
  events: {
    all: () => ["events"] as const,
    list: (filter: object) => ["events", filter] as const,
  },
  segments: {
    list: () => ["segments"] as const,
    strategies: (id: number) => ["segments", id, "strategies"] as const,
  },
  contextFields: { list: () => ["context-fields"] as const },
  strategyTypes: { list: () => ["strategy-types"] as const },
  tagTypes: { list: () => ["tag-types"] as const },
  apiTokens: { list: () => ["api-tokens"] as const },
  addons: {
    list: () => ["addons"] as const,
    deliveries: (id: number) => ["addons", id, "deliveries"] as const,
  },
  applications: {
    list: () => ["applications"] as const,
    detail: (appName: string) => ["application", appName] as const,
    overview: (appName: string) => ["application", appName, "overview"] as const,
  },
  users: { list: () => ["users"] as const },
  serviceAccounts: { list: () => ["service-accounts"] as const },
  groups: { list: () => ["groups"] as const },
  roles: {
    list: () => ["roles"] as const,
    /** Every role's detail, to refresh them all. */
    details: () => ["role"] as const,
    detail: (id: number | undefined) => ["role", id] as const,
    permissions: () => ["permissions"] as const,
  },
  sso: { settings: () => ["sso-settings"] as const },
  playground: { result: (request: object | null) => ["playground", request] as const },
  guides: { detail: (name: string) => ["guide", name] as const },
};
