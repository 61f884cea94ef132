import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT_PERMISSIONS } from "../src/access/permissions.js";
import { ACTION_SPECS } from "../src/domains/change-requests/actions.js";
import type { Action } from "../src/domains/change-requests/schemas.js";
import { fingerprint } from "./support/fingerprint.js";
import { createUser, login } from "./support/people.js";
import { EDITOR_ROOT, MEMBER } from "./support/role-expectations.js";
import { CLIENT_TOKEN, type Reply, startTestServer, type TestServer } from "./support/server.js";

// Objects named by id, across projects: generated from the route table and from every
// change-request action. Three people who may change things in project `ours` (an Owner and
// a Member whose root role is Viewer) or in global objects and `default` (an Editor, member
// of nothing) name, in every identifier of a path or a body, an object of the open project
// `theirs`, of `default`, of the private project `hush`, or a global one. Each attempt must be
// refused: 403 NoAccessError for what they may see but not change, 403 or 404 for what is
// named under a project it is not in, and for what they may not see 404, or else the same
// answer, byte for byte, as for an object that does not exist (the `ghost` world below).
// Nothing is written meanwhile, and no read shows anything of `hush`.

// ---------------------------------------------------------------------------------------------
// Who may do what, written out from the reference's role descriptions rather than read from
// the code under test (as in access-matrix.test.ts): an attempt the caller's roles allow is
// not an attempt, and is left out.

type Role = "editor" | "owner" | "member";
const ROLES: Role[] = ["editor", "owner", "member"];

const ROOT = new Set<string>(ROOT_PERMISSIONS);
/** What only a change request's author (or an admin) may do to it: none of the three wrote one. */
const AUTHOR = "AUTHOR";

/** The projects of the world; `hush` is private and none of the three is its member. */
type Place = "ours" | "theirs" | "default" | "hush";
const PLACES: Place[] = ["ours", "theirs", "default", "hush"];
/** Where an object lives: a project, no project, every project, or another person (their tokens). */
type Where = Place | "global" | "everywhere" | "someone";
const HIDDEN: Where[] = ["hush", "someone"];

function holds(role: Role, permission: string, where: Where): boolean {
  if (permission === "NONE") return true;
  if (permission === AUTHOR) return false;
  // A root permission holds everywhere, but what covers every project covers `hush` too.
  if (ROOT.has(permission)) return role === "editor" && EDITOR_ROOT.has(permission) && where !== "everywhere";
  if (role === "owner") return where === "ours" && permission !== "SKIP_CHANGE_REQUEST";
  if (role === "member") return where === "ours" && MEMBER.has(permission);
  return where === "default" && (MEMBER.has(permission) || permission.endsWith("_CHANGE_REQUEST"));
}

// ---------------------------------------------------------------------------------------------
// The world: in each project a flag with strategies (using its project's segment), a parent
// it depends on, an archived flag, a tag, an API token, a person and a group given a role, an
// addon and a change request in review; global objects besides.

interface ProjectObjects {
  project: string;
  flag: string;
  parent: string;
  gone: string;
  tag: string;
  /** The flag's strategy in development, and in production (where change requests are required). */
  strategy: string;
  prodStrategy: string;
  segment: number;
  segmentName: string;
  token: number;
  addon: number;
  grantee: number;
  group: number;
  /** A change request in review, in production (none in `default`, where imports need no review). */
  request: number | undefined;
  change: number | undefined;
  /** The flag's latest version: the id of its newest event. */
  version: number;
  /** The global release template the flag's plans were made from. */
  template: string;
  /** The flag's release plan, a milestone of it, its safeguard and the environment's, per environment. */
  releases: Record<typeof DEV | typeof PROD, Releases>;
}

interface Releases {
  plan: string;
  milestone: string;
  planSafeguard: string;
  envSafeguard: string;
}

interface World {
  at: Record<Place, ProjectObjects>;
  globalSegment: number;
  rootRole: number;
  projectRole: number;
  group: number;
  admin: number;
  bystander: number;
  serviceAccount: number;
  serviceToken: number;
  everywhereAddon: number;
  everywhereToken: number;
  /** A personal access token of another person (the admin). */
  othersPat: number;
  /** Each person's own draft in `ours` production, one change of each action they may draft. */
  own: Record<Role, { draft: number; changes: Partial<Record<Action, number>> }>;
}

/**
 * The world with every object hidden from the three replaced by one that does not exist:
 * what they are answered about `hush` must be what they are answered about `ghost`.
 */
function ghostOf(world: World): World {
  const ghost: ProjectObjects = {
    project: "ghost",
    flag: "ghost-flag",
    parent: "ghost-parent",
    gone: "ghost-gone",
    tag: "ghost-tag",
    strategy: "00000000-0000-4000-8000-0000000000d1",
    prodStrategy: "00000000-0000-4000-8000-0000000000d2",
    segment: 990001,
    segmentName: "ghost-segment",
    token: 990002,
    addon: 990003,
    grantee: world.at.hush.grantee,
    group: world.at.hush.group,
    request: 990004,
    change: 990005,
    version: 990007,
    template: world.at.hush.template,
    releases: {
      [DEV]: ghostReleases("D"),
      [PROD]: ghostReleases("P"),
    },
  };
  return { ...world, at: { ...world.at, hush: ghost }, othersPat: 990006 };
}

/** Ids like a release plan's (ULIDs) that no object has. */
const ghostReleases = (tag: string): Releases => ({
  plan: `01GH0STP1AN0000000000000${tag}0`,
  milestone: `01GH0STM11ESTQNE00000000${tag}0`,
  planSafeguard: `01GH0STSAFEGVARD00000000${tag}1`,
  envSafeguard: `01GH0STSAFEGVARD00000000${tag}2`,
});
const releaseIds = (o: ProjectObjects) =>
  [DEV, PROD].flatMap((env) => Object.values(o.releases[env as typeof DEV]));

/** Turns an answer about `ghost` into what it would say about `hush`, were they the same. */
function unghost(world: World, text: string): string {
  const real = world.at.hush;
  const fake = ghostOf(world);
  let out = text.replaceAll("ghost", "hush");
  for (const key of ["strategy", "prodStrategy"] as const) out = out.replaceAll(fake.at.hush[key], real[key]);
  releaseIds(fake.at.hush).forEach((id, index) => {
    out = out.replaceAll(id, releaseIds(real)[index]!);
  });
  for (const key of ["segment", "token", "addon", "request", "change", "version"] as const) {
    out = out.replace(new RegExp(`\\b${fake.at.hush[key]}\\b`, "g"), String(real[key]));
  }
  return out.replace(new RegExp(`\\b${fake.othersPat}\\b`, "g"), String(world.othersPat));
}

/** What of `hush` must never be shown to the three, unless they named it themselves. */
function markersOf(world: World): string[] {
  const h = world.at.hush;
  return [
    h.project,
    h.flag,
    h.parent,
    h.gone,
    h.tag,
    h.segmentName,
    h.strategy,
    h.prodStrategy,
    `${h.project}-token`,
    ...releaseIds(h),
  ];
}
const named = (marker: string, text: string) =>
  new RegExp(`(?<![\\w-])${marker.replace(/[-]/g, "\\-")}(?![\\w-])`).test(text);

// ---------------------------------------------------------------------------------------------
// Attempts.

/** How an attempt names an object: acting on it, using it from another project's, or under another project's path. */
type How = "act" | "use" | "elsewhere";
interface Ref {
  where: Where;
  how: How;
}
const act = (where: Where): Ref => ({ where, how: "act" });
const use = (where: Where): Ref => ({ where, how: "use" });
const elsewhere = (where: Where): Ref => ({ where, how: "elsewhere" });

interface Attempt {
  /** The route as the route table names it: `METHOD url`. */
  route: string;
  refs: Ref[];
  path(world: World, role: Role): string | undefined;
  body?(world: World, role: Role): unknown;
  /** What the service asks for, when more than the route's permission. */
  need?: readonly string[];
  /** Refused for another reason than access (the reason): a 400 is right too. */
  refused?: string;
  /** Asking the same of a missing object would write (an import creating it): no comparison. */
  noGhost?: true;
}

type Expectation = "allowed" | "absent" | "403" | "403|404" | "refused" | "no-leak";

function expectationFor(
  role: Role,
  attempt: Attempt,
  method: string,
  permission: readonly string[],
): Expectation {
  if (attempt.refs.length === 0) return "no-leak";
  if (attempt.refs.some((ref) => HIDDEN.includes(ref.where))) return "absent";
  if (attempt.refused) return "refused";
  if (attempt.refs.some((ref) => ref.how === "elsewhere")) return "403|404";
  if (attempt.refs.some((ref) => ref.how === "use")) return "403";
  const need = attempt.need ?? permission;
  const allowed = attempt.refs.every((ref) => need.some((p) => holds(role, p, ref.where)));
  // What they may read, they read: it must show nothing of `hush` either.
  if (allowed) return method === "GET" ? "no-leak" : "allowed";
  return "403";
}

const DEV = "development";
const PROD = "production";
const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString();
const webhook = (url: string, projects: string[]) => ({
  provider: "webhook",
  enabled: false,
  parameters: { url: `https://hooks.example.com/${url}` },
  events: ["feature-created"],
  projects,
});
const addVariant = [
  {
    op: "add",
    path: "/-",
    value: { name: "probe", weight: 1000, weightType: "variable", stickiness: "default" },
  },
];

/** Fills a route's parameters; undefined when a parameter has no value (the attempt does not apply). */
function fill(url: string, params: Record<string, string | number | undefined>): string | undefined {
  let missing = false;
  const path = url.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) missing = true;
    return encodeURIComponent(String(value));
  });
  return missing ? undefined : path;
}

const SAFEGUARD = {
  impactMetric: {
    metricName: "unleash_counter_errors",
    timeRange: "hour",
    aggregationMode: "rps",
    labelSelectors: {},
  },
  triggerCondition: { operator: ">", threshold: 10 },
};
const RELEASE_TEMPLATE = {
  name: "global-template",
  milestones: [
    { name: "first", sortOrder: 0, strategies: [{ name: "default" }] },
    { name: "second", sortOrder: 1, strategies: [{ name: "default" }] },
  ],
};
/** A template whose milestone's strategy uses a segment. */
const templateUsing = (segment: number) => ({
  ...RELEASE_TEMPLATE,
  name: "probe-template",
  milestones: [{ name: "only", sortOrder: 0, strategies: [{ name: "default", segments: [segment] }] }],
});
const flagEnvironment = "/api/admin/projects/:projectId/features/:featureName/environments/:environment";

const DEFAULT_STRATEGY = {
  name: "flexibleRollout",
  parameters: { rollout: "50", stickiness: "default", groupId: "probe" },
  constraints: [],
};

/** A valid body for each route that takes one, about the objects of a place. */
type BodyOf = (w: World, o: ProjectObjects) => unknown;
const importing = (data: Record<string, unknown>) => ({
  features: [],
  featureStrategies: [],
  tagTypes: [],
  ...data,
});
const BODIES: Record<string, BodyOf> = {
  "POST /api/admin/api-tokens": (_, o) => ({
    tokenName: "probe",
    type: "client",
    environment: DEV,
    projects: [o.project],
  }),
  "PUT /api/admin/api-tokens/:token": () => ({ expiresAt: inAWeek() }),
  "POST /api/admin/metrics/applications/:appName": () => ({ description: "probe" }),
  "PUT /api/admin/environments/update/:name": () => ({ type: "development" }),
  "PUT /api/admin/projects/:projectId": () => ({ name: "probe" }),
  "PUT /api/admin/projects/:projectId/settings": () => ({ mode: "open" }),
  "POST /api/admin/projects/:projectId/environments": () => ({ environment: DEV }),
  "POST /api/admin/projects/:projectId/environments/:environment/default-strategy": () => DEFAULT_STRATEGY,
  "POST /api/admin/projects/:projectId/access": (w) => ({ roles: [5], users: [w.bystander], groups: [] }),
  "PUT /api/admin/projects/:projectId/access": (w) => ({ roles: [{ id: 5, users: [w.bystander] }] }),
  "PUT /api/admin/projects/:projectId/users/:userId/roles": () => ({ roles: [5] }),
  "PUT /api/admin/projects/:projectId/groups/:groupId/roles": () => ({ roles: [5] }),
  "PUT /api/admin/roles/:id": () => ({ name: "probe-role", type: "root-custom", permissions: [] }),
  "PUT /api/admin/groups/:groupId": (w) => ({ name: "probe-group", users: [{ user: { id: w.bystander } }] }),
  "POST /api/admin/groups": (w) => ({
    name: "probe-group",
    rootRole: 1,
    users: [{ user: { id: w.bystander } }],
  }),
  "POST /api/admin/segments": (_, o) => ({ name: "probe-segment", project: o.project, constraints: [] }),
  "PUT /api/admin/segments/:id": (_, o) => ({ name: o.segmentName, project: o.project, constraints: [] }),
  "PUT /api/admin/context/:name": () => ({ name: "global-context", legalValues: [] }),
  "POST /api/admin/context/:name/legal-values": () => ({ value: "probe" }),
  "PUT /api/admin/context/:name/legal-values": () => ({ value: "probe" }),
  "PUT /api/admin/tag-types/:name": () => ({ description: "probe" }),
  "PUT /api/admin/strategies/:name": () => ({ name: "global-strategy", parameters: [] }),
  "POST /api/admin/projects/:projectId/features": () => ({ name: "probe-flag" }),
  "PUT /api/admin/projects/:projectId/features/:featureName": () => ({ description: "probe" }),
  "PATCH /api/admin/projects/:projectId/features/:featureName": () => [
    { op: "replace", path: "/description", value: "probe" },
  ],
  "POST /api/admin/projects/:projectId/stale": (_, o) => ({ features: [o.flag], stale: true }),
  "POST /api/admin/projects/:projectId/archive": (_, o) => ({ features: [o.flag] }),
  "POST /api/admin/projects/:projectId/revive": (_, o) => ({ features: [o.gone] }),
  "POST /api/admin/projects/:projectId/delete": (_, o) => ({ features: [o.gone] }),
  "PUT /api/admin/projects/:projectId/features/:featureName/environments/:environment/variants": () => [],
  "PATCH /api/admin/projects/:projectId/features/:featureName/environments/:environment/variants": () =>
    addVariant,
  "PUT /api/admin/projects/:projectId/features/:featureName/variants": () => [],
  "PATCH /api/admin/projects/:projectId/features/:featureName/variants": () => addVariant,
  "PUT /api/admin/projects/:projectId/features/:featureName/variants-batch": () => ({
    variants: [],
    environments: [DEV],
  }),
  "POST /api/admin/projects/:projectId/features/:featureName/variants-batch": () => ({
    variants: [],
    environments: [DEV],
  }),
  "POST /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies": () => ({
    name: "default",
  }),
  "POST /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/set-sort-order":
    (_, o) => [{ id: o.strategy, sortOrder: 0 }],
  "PUT /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/:strategyId":
    () => ({ name: "default" }),
  "PATCH /api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies/:strategyId":
    () => [{ op: "replace", path: "/title", value: "probe" }],
  "POST /api/admin/features/:featureName/tags": () => ({ type: "simple", value: "probe" }),
  "PUT /api/admin/features/:featureName/tags": () => ({
    addedTags: [{ type: "simple", value: "probe" }],
    removedTags: [],
  }),
  "POST /api/admin/tags/features": (_, o) => ({
    features: [o.flag],
    tags: { addedTags: [{ type: "simple", value: "probe" }], removedTags: [] },
  }),
  "PUT /api/admin/tags/features": (_, o) => ({
    features: [o.flag],
    tags: { addedTags: [{ type: "simple", value: "probe" }], removedTags: [] },
  }),
  "POST /api/admin/projects/:projectId/features/:featureName/dependencies": (_, o) => ({ feature: o.parent }),
  "POST /api/admin/projects/:projectId/features/:featureName/lifecycle/complete": () => ({ status: "kept" }),
  "POST /api/admin/auth/oidc/settings": () => ({ enabled: false, defaultRootRoleId: 1 }),
  "POST /api/admin/user-admin": () => ({ username: "probe-user", rootRole: 1 }),
  "PUT /api/admin/user-admin/:id": () => ({ rootRole: 1 }),
  "POST /api/admin/user-admin/:id/change-password": () => ({ password: "Probe-Password-1234!" }),
  "POST /api/admin/user-admin/reset-password": (w) => ({ id: String(w.admin) }),
  "POST /api/admin/service-account": () => ({ username: "probe-sa", name: "probe", rootRole: 1 }),
  "PUT /api/admin/service-account/:id": () => ({ name: "probe", rootRole: 1 }),
  "POST /api/admin/service-account/:id/token": () => ({ description: "probe", expiresAt: inAWeek() }),
  "PUT /api/admin/projects/:projectId/environments/:environment/change-requests/config": () => ({
    changeRequestsEnabled: false,
  }),
  "POST /api/admin/projects/:projectId/environments/:environment/change-requests": (_, o) => ({
    feature: o.flag,
    action: "updateEnabled",
    payload: { enabled: false },
  }),
  "PUT /api/admin/projects/:projectId/change-requests/:id/state": () => ({ state: "Approved" }),
  "PUT /api/admin/projects/:projectId/change-requests/:id/title": () => ({ title: "probe" }),
  "PUT /api/admin/projects/:projectId/change-requests/:id/approvers": (w) => ({ reviewers: [w.bystander] }),
  "POST /api/admin/projects/:projectId/change-requests/:id/comments": () => ({ text: "probe" }),
  "PUT /api/admin/projects/:projectId/change-requests/:id/changes/:changeId": (_, o) => ({
    feature: o.flag,
    action: "updateEnabled",
    payload: { enabled: false },
  }),
  "POST /api/admin/addons": (_, o) => webhook("probe", [o.project]),
  "PUT /api/admin/addons/:id": (_, o) => webhook("probe", [o.project]),
  "POST /api/admin/playground": (_, o) => ({
    projects: [o.project],
    environment: DEV,
    context: { appName: "probe" },
  }),
  "POST /api/admin/playground/advanced": (_, o) => ({
    projects: [o.project],
    environments: [DEV],
    context: { appName: "probe" },
  }),
  "POST /api/admin/features-batch/export": (_, o) => ({ environment: DEV, features: [o.flag] }),
  "POST /api/admin/features-batch/validate": (_, o) => ({
    project: o.project,
    environment: DEV,
    data: importing({}),
  }),
  "POST /api/admin/features-batch/import": (_, o) => ({
    project: o.project,
    environment: DEV,
    data: importing({}),
  }),
  "POST /api/admin/events/search": (_, o) => ({ project: o.project }),
  "POST /api/admin/release-plan-templates": (_, o) => templateUsing(o.segment),
  "PUT /api/admin/release-plan-templates/:templateId": (_, o) => templateUsing(o.segment),
  [`POST ${flagEnvironment}/release-plans`]: (_, o) => ({ templateId: o.template }),
  [`PUT ${flagEnvironment}/progressions/:sourceMilestoneId`]: (_, o) => ({
    targetMilestone: o.releases[DEV].milestone,
    transitionCondition: { intervalMinutes: 5 },
  }),
  [`PUT ${flagEnvironment}/release-plans/:planId/safeguards`]: () => SAFEGUARD,
  [`PUT ${flagEnvironment}/safeguards`]: () => SAFEGUARD,
  "PUT /api/admin/projects/:projectId/features/:featureName/impact-metrics/config": () =>
    SAFEGUARD.impactMetric,
  "POST /api/admin/projects/:projectId/features/:featureName/impact-metrics/config": () =>
    SAFEGUARD.impactMetric,
  "POST /api/admin/projects/:projectId/features/:featureName/versions/:eventId/restore": () => ({}),
};

/** What the service asks of routes whose route-table permission is NONE, or asks more. */
const NEEDS: Record<string, readonly string[]> = {
  "POST /api/admin/projects/:projectId/environments/:environment/change-requests": [
    "UPDATE_FEATURE_ENVIRONMENT",
  ],
  "PUT /api/admin/projects/:projectId/change-requests/:id/state": ["APPROVE_CHANGE_REQUEST"],
  "PUT /api/admin/projects/:projectId/change-requests/:id/title": [AUTHOR],
  "PUT /api/admin/projects/:projectId/change-requests/:id/approvers": [AUTHOR],
  "DELETE /api/admin/projects/:projectId/change-requests/:id": [AUTHOR],
  "PUT /api/admin/projects/:projectId/change-requests/:id/changes/:changeId": [AUTHOR],
  "DELETE /api/admin/projects/:projectId/change-requests/:id/changes/:changeId": [AUTHOR],
  "POST /api/admin/features-batch/import": ["CREATE_FEATURE"],
};

/** Values of a project's objects for the parameters of a path under it. */
const projectParams = (
  o: ProjectObjects,
  env: typeof DEV | typeof PROD,
  url = "",
): Record<string, string | number | undefined> => ({
  projectId: o.project,
  eventId: o.version,
  planId: o.releases[env].plan,
  milestoneId: o.releases[env].milestone,
  sourceMilestoneId: o.releases[env].milestone,
  // A plan's safeguard under its plan, the environment's own under the environment.
  safeguardId: url.includes("/release-plans/") ? o.releases[env].planSafeguard : o.releases[env].envSafeguard,
  featureName: o.flag,
  environment: env,
  strategyId: o.strategy,
  parent: o.parent,
  id: o.request,
  changeId: o.change,
  userId: o.grantee,
  groupId: o.group,
  roleId: 5,
});

/** Routes under a project whose body names the project's objects: sent under another project, they name them elsewhere. */
const BODY_NAMES_OBJECTS = new Set([
  "POST /api/admin/projects/:projectId/stale",
  "POST /api/admin/projects/:projectId/archive",
  "POST /api/admin/projects/:projectId/revive",
  "POST /api/admin/projects/:projectId/delete",
]);
/** Parameters that name an object inside the path's project (a flag, a strategy, a request…). */
const OBJECT_PARAMS = [
  "featureName",
  "strategyId",
  "parent",
  "id",
  "changeId",
  "planId",
  "milestoneId",
  "sourceMilestoneId",
  "safeguardId",
  "eventId",
];
/** Parameters naming a part of an object: the part may be another project's while the object is ours. */
const PART_PARAMS = [
  "strategyId",
  "parent",
  "changeId",
  "planId",
  "sourceMilestoneId",
  "safeguardId",
  "eventId",
];

type Params = (w: World, role: Role) => Record<string, string | number | undefined>;

/**
 * The attempts a route's path yields: under a project, its object in each project, and objects
 * of `theirs` and `hush` named under `ours` (also as a part of an object of ours); without a
 * project, the object by its id in each project it may belong to, and a global one.
 * Undefined: the generator does not know the route.
 */
function pathAttempts(method: string, url: string): Attempt[] | undefined {
  const route = `${method} ${url}`;
  const body = BODIES[route];
  const make = (refs: Ref[], params: Params, place?: (w: World) => ProjectObjects): Attempt => ({
    route,
    refs,
    path: (w, role) => fill(url, params(w, role)),
    ...(body && { body: (w: World) => body(w, place ? place(w) : w.at.ours) }),
    ...(NEEDS[route] && { need: NEEDS[route] }),
  });
  const params = [...url.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1]!);
  if (params.includes("projectId")) {
    const env = url.includes("change-requests") ? PROD : DEV;
    const attempts = PLACES.map((p) =>
      make(
        [act(p)],
        (w) => projectParams(w.at[p], env, url),
        (w) => w.at[p],
      ),
    );
    const namesObjects = params.some((p) => OBJECT_PARAMS.includes(p)) || BODY_NAMES_OBJECTS.has(route);
    const part = params.find((p) => PART_PARAMS.includes(p));
    for (const q of namesObjects ? (["theirs", "hush"] as const) : []) {
      attempts.push(
        make(
          [act("ours"), elsewhere(q)],
          (w) => ({ ...projectParams(w.at[q], env, url), projectId: "ours" }),
          (w) => w.at[q],
        ),
      );
      if (part) {
        attempts.push(
          make([act("ours"), elsewhere(q)], (w, role) => ({
            ...projectParams(w.at.ours, env, url),
            // A change of another request, in the caller's own draft.
            ...(part === "changeId" && { id: w.own[role].draft }),
            [part]: projectParams(w.at[q], env, url)[part],
          })),
        );
      }
    }
    if (params.includes("roleId") && method === "POST") {
      for (const root of [(_: World) => 1, (w: World) => w.rootRole]) {
        attempts.push({
          ...make([act("ours"), use("global")], (w) => ({
            ...projectParams(w.at.ours, env, url),
            userId: w.bystander,
            roleId: root(w),
          })),
          refused: "a root role is not a project role",
        });
      }
    }
    return attempts;
  }
  const perPlace = (pick: (o: ProjectObjects) => Record<string, string | number>) =>
    PLACES.map((p) =>
      make(
        [act(p)],
        (w) => pick(w.at[p]),
        (w) => w.at[p],
      ),
    );
  const global = (where: Where, pick: (w: World) => Record<string, string | number>) =>
    make([act(where)], pick);
  if (url.startsWith("/api/admin/segments/")) {
    const globally = global("global", (w) => ({ id: w.globalSegment }));
    return [
      ...perPlace((o) => ({ id: o.segment })),
      { ...globally, ...(body && { body: () => ({ name: "global-segment", constraints: [] }) }) },
    ];
  }
  if (url.startsWith("/api/admin/api-tokens/"))
    return [
      ...perPlace((o) => ({ token: o.token })),
      global("everywhere", (w) => ({ token: w.everywhereToken })),
    ];
  if (url.startsWith("/api/admin/addons/"))
    return [...perPlace((o) => ({ id: o.addon })), global("everywhere", (w) => ({ id: w.everywhereAddon }))];
  if (url.startsWith("/api/admin/features/:featureName/tags/"))
    return perPlace((o) => ({ featureName: o.flag, type: "simple", value: o.tag }));
  if (url.startsWith("/api/admin/features/:featureName")) return perPlace((o) => ({ featureName: o.flag }));
  if (url.startsWith("/api/admin/client-metrics/features/")) return perPlace((o) => ({ name: o.flag }));
  if (url.startsWith("/api/admin/archive/")) return perPlace((o) => ({ featureName: o.gone }));
  if (url.startsWith("/api/admin/user/tokens/")) return [global("someone", (w) => ({ id: w.othersPat }))];
  const GLOBAL: [string, (w: World) => Record<string, string | number>][] = [
    ["/api/admin/roles/", (w) => ({ id: w.rootRole })],
    ["/api/admin/groups/", (w) => ({ groupId: w.group })],
    ["/api/admin/user-admin/", (w) => ({ id: w.admin })],
    ["/api/admin/service-account/", (w) => ({ id: w.serviceAccount, tokenId: w.serviceToken })],
    ["/api/admin/context/", () => ({ name: "global-context", value: "gold" })],
    ["/api/admin/tag-types/", () => ({ name: "global-tagtype" })],
    ["/api/admin/strategies/", () => ({ name: "global-strategy" })],
    ["/api/admin/environments/", () => ({ name: DEV })],
    ["/api/admin/metrics/", () => ({ appName: "shop-app", environment: DEV })],
    ["/api/admin/release-plan-templates/", (w) => ({ templateId: w.at.ours.template })],
  ];
  const found = GLOBAL.find(([prefix]) => url.startsWith(prefix));
  if (found && params.length > 0) {
    const attempts = [global("global", found[1])];
    if (url === "/api/admin/roles/:id") attempts.push(global("global", (w) => ({ id: w.projectRole })));
    // Groups belong to no project, but are given roles in projects, `hush` among them.
    if (url.startsWith("/api/admin/groups/")) {
      attempts.push(...PLACES.map((p) => global("global", (w) => ({ groupId: w.at[p].group }))));
    }
    return attempts;
  }
  // No parameter: the body names the objects, of each place.
  if (body && params.length === 0) return perPlace(() => ({}));
  return undefined;
}

/** A route, a path and a body, for attempts written out rather than generated. */
function attempt(
  route: string,
  refs: Ref[],
  path: (w: World, role: Role) => string | undefined,
  body?: (w: World, role: Role) => unknown,
  extra: Partial<Attempt> = {},
): Attempt {
  return { route, refs, path, ...(body && { body }), ...(NEEDS[route] && { need: NEEDS[route] }), ...extra };
}

const OURS = "/api/admin/projects/ours";
const OURS_FLAG = `${OURS}/features/ours-flag`;
const FOREIGN: Place[] = ["theirs", "default", "hush"];

/** Identifiers inside bodies: what ours' objects use or are given, taken from elsewhere. */
function nestedAttempts(): Attempt[] {
  const strategies = `/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies`;
  const list: Attempt[] = [];
  for (const q of FOREIGN) {
    const segments = (w: World) => [w.at[q].segment];
    list.push(
      attempt(
        `POST ${strategies}`,
        [act("ours"), use(q)],
        () => `${OURS_FLAG}/environments/${DEV}/strategies`,
        (w) => ({
          name: "default",
          segments: segments(w),
        }),
      ),
      attempt(
        `PUT ${strategies}/:strategyId`,
        [act("ours"), use(q)],
        (w) => `${OURS_FLAG}/environments/${DEV}/strategies/${w.at.ours.strategy}`,
        (w) => ({ name: "default", segments: segments(w) }),
      ),
      attempt(
        `PATCH ${strategies}/:strategyId`,
        [act("ours"), use(q)],
        (w) => `${OURS_FLAG}/environments/${DEV}/strategies/${w.at.ours.strategy}`,
        (w) => [{ op: "replace", path: "/segments", value: segments(w) }],
      ),
      attempt(
        `PUT ${flagEnvironment}/progressions/:sourceMilestoneId`,
        [act("ours"), elsewhere(q)],
        (w) => `${OURS_FLAG}/environments/${DEV}/progressions/${w.at.ours.releases[DEV].milestone}`,
        (w) => ({
          targetMilestone: w.at[q].releases[DEV].milestone,
          transitionCondition: { intervalMinutes: 5 },
        }),
        { refused: "a milestone of another plan is no target" },
      ),
      attempt(
        `POST ${strategies}/set-sort-order`,
        [act("ours"), elsewhere(q)],
        () => `${OURS_FLAG}/environments/${DEV}/strategies/set-sort-order`,
        (w) => [
          { id: w.at.ours.strategy, sortOrder: 1 },
          { id: w.at[q].strategy, sortOrder: 0 },
        ],
      ),
      attempt(
        "POST /api/admin/projects/:projectId/environments/:environment/default-strategy",
        [act("ours"), use(q)],
        () => `${OURS}/environments/${DEV}/default-strategy`,
        (w) => ({ ...DEFAULT_STRATEGY, segments: segments(w) }),
      ),
      attempt(
        "POST /api/admin/projects/:projectId/features/:featureName/dependencies",
        [act("ours"), elsewhere(q)],
        () => `${OURS_FLAG}/dependencies`,
        (w) => ({ feature: w.at[q].parent }),
      ),
      // Tags for several flags at once: one of another project among them.
      ...(["POST", "PUT"] as const).map((method) =>
        attempt(
          `${method} /api/admin/tags/features`,
          [act("ours"), act(q)],
          () => "/api/admin/tags/features",
          (w) => ({
            features: ["ours-flag", w.at[q].flag],
            tags: { addedTags: [{ type: "simple", value: "probe" }], removedTags: [] },
          }),
        ),
      ),
      // A segment of ours' moved to another project, by whoever may edit it.
      attempt(
        "PUT /api/admin/segments/:id",
        [act("ours"), act(q)],
        (w) => `/api/admin/segments/${w.at.ours.segment}`,
        (w) => ({ name: "ours-segment", project: w.at[q].project, constraints: [] }),
      ),
      attempt(
        "PUT /api/admin/segments/:id",
        [act("global"), act(q)],
        (w) => `/api/admin/segments/${w.globalSegment}`,
        (w) => ({ name: "global-segment", project: w.at[q].project, constraints: [] }),
      ),
      // An addon of an open project widened to another.
      attempt(
        "PUT /api/admin/addons/:id",
        [act("theirs"), act(q)],
        (w) => `/api/admin/addons/${w.at.theirs.addon}`,
        (w) => webhook("probe", ["theirs", w.at[q].project]),
      ),
      attempt(
        "POST /api/admin/api-tokens",
        [act(q)],
        () => "/api/admin/api-tokens",
        (w) => ({
          tokenName: "probe",
          type: "client",
          environment: DEV,
          project: w.at[q].project,
        }),
      ),
      attempt(
        "POST /api/admin/api-tokens",
        [act("ours"), act(q)],
        () => "/api/admin/api-tokens",
        (w) => ({
          tokenName: "probe",
          type: "frontend",
          environment: DEV,
          projects: ["ours", w.at[q].project],
        }),
      ),
    );
  }
  const everywhere = [act("everywhere")];
  list.push(
    attempt(
      "POST /api/admin/api-tokens",
      everywhere,
      () => "/api/admin/api-tokens",
      () => ({
        tokenName: "probe",
        type: "client",
        environment: DEV,
        projects: ["*"],
      }),
    ),
    attempt(
      "POST /api/admin/api-tokens",
      everywhere,
      () => "/api/admin/api-tokens",
      () => ({
        tokenName: "probe",
        type: "client",
        environment: DEV,
      }),
    ),
    ...[[], ["*"]].map((projects) =>
      attempt(
        "POST /api/admin/addons",
        everywhere,
        () => "/api/admin/addons",
        () => webhook("probe", projects),
      ),
    ),
    attempt(
      "PUT /api/admin/addons/:id",
      [act("theirs"), ...everywhere],
      (w) => `/api/admin/addons/${w.at.theirs.addon}`,
      () => webhook("probe", []),
    ),
  );
  // Roles a project cannot give: root roles, by id.
  const rootRoles = [(_: World) => 1, (w: World) => w.rootRole];
  for (const root of rootRoles) {
    const refs = [act("ours"), use("global")];
    const refused = { refused: "a root role is not a project role" };
    list.push(
      attempt(
        "POST /api/admin/projects/:projectId/access",
        refs,
        () => `${OURS}/access`,
        (w) => ({
          roles: [root(w)],
          users: [w.bystander],
          groups: [],
        }),
        refused,
      ),
      attempt(
        "PUT /api/admin/projects/:projectId/access",
        refs,
        () => `${OURS}/access`,
        (w) => ({
          roles: [{ id: root(w), users: [w.bystander] }],
        }),
        refused,
      ),
      attempt(
        "PUT /api/admin/projects/:projectId/users/:userId/roles",
        refs,
        (w) => `${OURS}/users/${w.bystander}/roles`,
        (w) => ({ roles: [root(w)] }),
        refused,
      ),
      attempt(
        "PUT /api/admin/projects/:projectId/groups/:groupId/roles",
        refs,
        (w) => `${OURS}/groups/${w.group}/roles`,
        (w) => ({ roles: [root(w)] }),
        refused,
      ),
    );
  }
  return list;
}

/** The project each person imports into: one where they may create flags, and that requires no review. */
const importsInto = (role: Role): Place => (role === "editor" ? "default" : "ours");

/**
 * Imports into the importer's own project naming another project's flag, segment or parent.
 * Validating is a dry run that reports what an import would refuse: a read, which must show
 * nothing of `hush`; importing must refuse.
 */
function importAttempts(): Attempt[] {
  const list: Attempt[] = [];
  const into = (data: (w: World, own: string) => Record<string, unknown>) => (w: World, role: Role) => ({
    project: importsInto(role),
    environment: DEV,
    data: importing(data(w, w.at[importsInto(role)].flag)),
  });
  for (const q of PLACES) {
    const imports = [
      into((w) => ({ features: [{ name: w.at[q].flag }] })),
      into((w, own) => ({
        features: [{ name: own }],
        featureStrategies: [{ name: "default", featureName: own, segments: [1] }],
        segments: [{ id: 1, name: w.at[q].segmentName }],
      })),
      into((w, own) => ({
        features: [{ name: own }],
        dependencies: [{ feature: own, dependencies: [{ feature: w.at[q].parent }] }],
      })),
    ];
    for (const route of ["validate", "import"]) {
      for (const [index, body] of imports.entries()) {
        const path = (_: World, role: Role) =>
          importsInto(role) === q ? undefined : `/api/admin/features-batch/${route}`;
        // Flag names are one namespace, as in the reference: validating a name a private project
        // holds must say it is taken (importing it would fail), without naming the project.
        const refs = route === "validate" && (q !== "hush" || index === 0) ? [] : [use(q)];
        list.push(
          attempt(
            `POST /api/admin/features-batch/${route}`,
            refs,
            path,
            body,
            route === "import"
              ? {
                  refused: "an import cannot take over another project's flag, segment or parent",
                  // Importing a flag named as a missing one would create it.
                  ...(index === 0 && { noGhost: true as const }),
                }
              : {},
          ),
        );
      }
    }
  }
  return list;
}

/** Reads that filter by something of `hush`: answered as for something missing. */
function filteredReads(): Attempt[] {
  const hush = [act("hush")];
  const get = (route: string, query: (o: ProjectObjects) => string) =>
    attempt(`GET ${route}`, hush, (w) => `${route}?${query(w.at.hush)}`);
  return [
    get("/api/admin/events", (o) => `project=${o.project}`),
    get("/api/admin/events", (o) => `feature=${o.flag}`),
    get("/api/admin/search/features", (o) => `project=IS:${o.project}`),
    get("/api/admin/search/features", (o) => `query=${o.flag}`),
    get("/api/admin/search/features", (o) => `tag=simple:${o.tag}`),
    get("/api/admin/search/features", (o) => `segment=IS:${o.segmentName}`),
    get("/api/admin/search/change-requests", (o) => `project=${o.project}`),
    attempt(
      "GET /api/admin/projects/:projectId/features",
      hush,
      (w) => `${OURS}/features?tag=simple:${w.at.hush.tag}`,
    ),
    attempt(
      "POST /api/admin/events/search",
      hush,
      () => "/api/admin/events/search",
      (w) => ({ feature: w.at.hush.flag }),
    ),
    attempt(
      "POST /api/admin/events/search",
      hush,
      () => "/api/admin/events/search",
      (w) => ({ query: w.at.hush.flag }),
    ),
    attempt(
      "POST /api/admin/features-batch/export",
      hush,
      () => "/api/admin/features-batch/export",
      (w) => ({
        environment: DEV,
        project: w.at.hush.project,
      }),
    ),
    attempt(
      "POST /api/admin/features-batch/export",
      hush,
      () => "/api/admin/features-batch/export",
      (w) => ({
        environment: DEV,
        tag: `simple:${w.at.hush.tag}`,
      }),
    ),
  ];
}

/** Reads that name nothing of `hush` and must show nothing of it. */
function plainReads(): Attempt[] {
  const read = (route: string, path: string, body?: unknown) =>
    attempt(route, [], () => path, body === undefined ? undefined : () => body);
  return [
    read("GET /api/admin/metrics/applications/:appName", "/api/admin/metrics/applications/shop-app"),
    read(
      "GET /api/admin/metrics/applications/:appName/overview",
      "/api/admin/metrics/applications/shop-app/overview",
    ),
    read(
      "GET /api/admin/metrics/instances/:appName/environment/:environment",
      `/api/admin/metrics/instances/shop-app/environment/${DEV}`,
    ),
    read("GET /api/admin/segments/strategies/:id", "/api/admin/segments/strategies/1"),
    read("POST /api/admin/playground", "/api/admin/playground", {
      projects: "*",
      environment: DEV,
      context: { appName: "x" },
    }),
    read("POST /api/admin/playground/advanced", "/api/admin/playground/advanced", {
      projects: "*",
      environments: [DEV, PROD],
      context: { appName: "x" },
    }),
    read("POST /api/admin/features-batch/export", "/api/admin/features-batch/export", { environment: DEV }),
    read("POST /api/admin/events/search", "/api/admin/events/search", {}),
  ];
}

// ---------------------------------------------------------------------------------------------
// Change-request actions: each drafted in ours' production (which requires review), naming
// another project's object in each place its payload can; and each edited into the same in
// the caller's own draft.

type Variant = { feature?: (w: World) => string; payload: (w: World) => unknown; refs: Ref[] };
const flagOf = (p: Place) => (w: World) => w.at[p].flag;
const segmentChange = (p: Place | "global") => (w: World) =>
  p === "global" ? w.globalSegment : w.at[p].segment;

/** The action's payload naming another place's objects, under ours' flag. */
const theirs = (q: Place, action: Action): Variant => ({
  payload: (w) => PAYLOADS[action](w.at[q]),
  refs: [elsewhere(q)],
});

/** A valid payload of each action for a place's flag or segment. */
const PAYLOADS: Record<Action, (o: ProjectObjects) => unknown> = {
  updateEnabled: () => ({ enabled: true }),
  addStrategy: () => ({ name: "default" }),
  updateStrategy: (o) => ({ id: o.prodStrategy, name: "default" }),
  deleteStrategy: (o) => ({ id: o.prodStrategy }),
  reorderStrategy: (o) => [{ id: o.prodStrategy, sortOrder: 0 }],
  patchVariant: () => ({ variants: [] }),
  archiveFeature: () => ({}),
  addDependency: (o) => ({ feature: o.parent }),
  deleteDependency: (o) => ({ feature: o.parent }),
  updateSegment: (o) => ({ id: o.segment, name: o.segmentName, project: "ours", constraints: [] }),
  deleteSegment: (o) => ({ id: o.segment }),
  addReleasePlan: (o) => ({ templateId: o.template }),
  deleteReleasePlan: (o) => ({ planId: o.releases[PROD].plan }),
  startMilestone: (o) => ({ milestoneId: o.releases[PROD].milestone }),
  changeMilestoneProgression: (o) => ({
    sourceMilestone: o.releases[PROD].milestone,
    targetMilestone: o.releases[PROD].milestone,
    transitionCondition: { intervalMinutes: 5 },
  }),
  deleteMilestoneProgression: (o) => ({ sourceMilestone: o.releases[PROD].milestone }),
  resumeMilestoneProgression: (o) => ({ planId: o.releases[PROD].plan }),
  changeReleasePlanSafeguard: (o) => ({ planId: o.releases[PROD].plan, safeguard: SAFEGUARD }),
  deleteReleasePlanSafeguard: (o) => ({
    planId: o.releases[PROD].plan,
    safeguardId: o.releases[PROD].planSafeguard,
  }),
  changeFeatureEnvSafeguard: () => ({ safeguard: SAFEGUARD }),
  deleteFeatureEnvSafeguard: (o) => ({ safeguardId: o.releases[PROD].envSafeguard }),
};

/** The payload fields of each action that name an object: another project's in them is used, or elsewhere. */
const FOREIGN_FIELDS: Record<Action, (q: Place) => Variant[]> = {
  updateEnabled: () => [],
  addStrategy: (q) => [
    { payload: (w) => ({ name: "default", segments: [w.at[q].segment] }), refs: [use(q)] },
  ],
  updateStrategy: (q) => [
    { payload: (w) => PAYLOADS.updateStrategy(w.at[q]), refs: [elsewhere(q)] },
    {
      payload: (w) => ({ id: w.at.ours.prodStrategy, name: "default", segments: [w.at[q].segment] }),
      refs: [use(q)],
    },
  ],
  deleteStrategy: (q) => [{ payload: (w) => PAYLOADS.deleteStrategy(w.at[q]), refs: [elsewhere(q)] }],
  reorderStrategy: (q) => [{ payload: (w) => PAYLOADS.reorderStrategy(w.at[q]), refs: [elsewhere(q)] }],
  patchVariant: () => [],
  archiveFeature: () => [],
  addDependency: (q) => [{ payload: (w) => PAYLOADS.addDependency(w.at[q]), refs: [elsewhere(q)] }],
  deleteDependency: (q) => [{ payload: (w) => PAYLOADS.deleteDependency(w.at[q]), refs: [elsewhere(q)] }],
  updateSegment: (q) => [{ payload: (w) => PAYLOADS.updateSegment(w.at[q]), refs: [use(q)] }],
  deleteSegment: (q) => [{ payload: (w) => PAYLOADS.deleteSegment(w.at[q]), refs: [use(q)] }],
  addReleasePlan: () => [],
  deleteReleasePlan: (q) => [theirs(q, "deleteReleasePlan")],
  startMilestone: (q) => [theirs(q, "startMilestone")],
  changeMilestoneProgression: (q) => [
    theirs(q, "changeMilestoneProgression"),
    {
      payload: (w) => ({
        ...(PAYLOADS.changeMilestoneProgression(w.at.ours) as object),
        targetMilestone: w.at[q].releases[PROD].milestone,
      }),
      refs: [elsewhere(q)],
    },
  ],
  deleteMilestoneProgression: (q) => [theirs(q, "deleteMilestoneProgression")],
  resumeMilestoneProgression: (q) => [theirs(q, "resumeMilestoneProgression")],
  changeReleasePlanSafeguard: (q) => [theirs(q, "changeReleasePlanSafeguard")],
  deleteReleasePlanSafeguard: (q) => [
    theirs(q, "deleteReleasePlanSafeguard"),
    {
      payload: (w) => ({
        planId: w.at.ours.releases[PROD].plan,
        safeguardId: w.at[q].releases[PROD].planSafeguard,
      }),
      refs: [elsewhere(q)],
    },
  ],
  changeFeatureEnvSafeguard: () => [],
  deleteFeatureEnvSafeguard: (q) => [theirs(q, "deleteFeatureEnvSafeguard")],
};

const isSegmentAction = (action: Action) => ACTION_SPECS[action].segment === true;
const actionPermission = (action: Action) => [ACTION_SPECS[action].permission].flat() as string[];

function changeRequestAttempts(): Attempt[] {
  const list: Attempt[] = [];
  const draftRoute = "POST /api/admin/projects/:projectId/environments/:environment/change-requests";
  const editRoute = "PUT /api/admin/projects/:projectId/change-requests/:id/changes/:changeId";
  for (const action of Object.keys(ACTION_SPECS) as Action[]) {
    const variants: Variant[] = FOREIGN.flatMap((q) => [
      ...FOREIGN_FIELDS[action](q),
      // The flag itself another project's.
      ...(isSegmentAction(action)
        ? []
        : [{ feature: flagOf(q), payload: (w: World) => PAYLOADS[action](w.at[q]), refs: [elsewhere(q)] }]),
    ]);
    if (isSegmentAction(action)) {
      variants.push({
        payload: (w) => ({
          ...(PAYLOADS[action](w.at.ours) as object),
          id: segmentChange("global")(w),
          name: "global-segment",
        }),
        refs: [use("global")],
      });
    }
    for (const variant of variants) {
      const change = (w: World) => ({
        ...(variant.feature
          ? { feature: variant.feature(w) }
          : isSegmentAction(action)
            ? {}
            : { feature: "ours-flag" }),
        action,
        payload: variant.payload(w),
      });
      const refs = [act("ours"), ...variant.refs];
      const need = actionPermission(action);
      list.push(
        attempt(draftRoute, refs, () => `${OURS}/environments/${PROD}/change-requests`, change, { need }),
        attempt(
          editRoute,
          refs,
          (w, role) => {
            const { draft, changes } = w.own[role];
            return changes[action] === undefined
              ? undefined
              : `${OURS}/change-requests/${draft}/changes/${changes[action]}`;
          },
          change,
          // A change keeps the flag it was drafted for: moving it to another is refused as such.
          { need, ...(variant.feature && { refused: "an edit cannot move a change to another flag" }) },
        ),
      );
    }
  }
  return list;
}

// ---------------------------------------------------------------------------------------------
// Routes the generators do not attack, each with the reason. A new route that names an
// object, in its path or its body, must be attacked or listed here: the coverage test fails.

const EXCLUDED: Record<string, string> = {
  "POST /api/admin/projects": "creates a project under a new id: names no existing object",
};

/** Body and query fields that name objects. */
const IDENTIFIER_FIELDS = new Set([
  "project",
  "projects",
  "feature",
  "features",
  "featureName",
  "segment",
  "segments",
  "roles",
  "users",
  "groups",
  "user",
  "id",
  "rootRole",
  "defaultRootRole",
  "defaultRootRoleId",
  "reviewers",
  "requestedApproverId",
]);

interface AdminRoute {
  key: string;
  method: string;
  url: string;
  permission: string[];
  fields: Set<string>;
  body: object | undefined;
}

function fieldsOf(schema: unknown, out: Set<string>, depth = 0): Set<string> {
  if (!schema || typeof schema !== "object" || depth > 10) return out;
  const node = schema as Record<string, unknown>;
  for (const [name, child] of Object.entries((node.properties as Record<string, unknown>) ?? {})) {
    out.add(name);
    fieldsOf(child, out, depth + 1);
  }
  fieldsOf(node.items, out, depth + 1);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    for (const child of (node[key] as unknown[]) ?? []) fieldsOf(child, out, depth + 1);
  }
  return out;
}

function adminRoutes(server: TestServer): AdminRoute[] {
  return server.routes
    .filter((route) => (route.config?.auth ?? "admin") === "admin" && !route.url.startsWith("/docs"))
    .flatMap((route) =>
      [route.method].flat().map((method) => ({
        key: `${method} ${route.url}`,
        method,
        url: route.url,
        permission: [route.config?.permission ?? []].flat() as string[],
        fields: fieldsOf(route.schema?.querystring, fieldsOf(route.schema?.body, new Set())),
        body: route.schema?.body as object | undefined,
      })),
    )
    .filter((route) => route.method !== "HEAD" && route.method !== "OPTIONS");
}

const namesObjects = (route: AdminRoute) =>
  route.url.includes(":") || [...route.fields].some((field) => IDENTIFIER_FIELDS.has(field));

function allAttempts(routes: AdminRoute[]): Attempt[] {
  const generated = routes.flatMap((route) =>
    namesObjects(route) && !EXCLUDED[route.key] ? (pathAttempts(route.method, route.url) ?? []) : [],
  );
  // Reads of every listing: what names nothing of `hush` shows nothing of it.
  const listings = routes
    .filter((route) => route.method === "GET" && !route.url.includes(":"))
    .map((route) => attempt(route.key, [], () => route.url));
  return [
    ...listings,
    ...plainReads(),
    ...filteredReads(),
    ...generated,
    ...nestedAttempts(),
    ...importAttempts(),
    ...changeRequestAttempts(),
  ];
}

// ---------------------------------------------------------------------------------------------
// Running them.

interface Actor {
  name: string;
  role: Role;
  headers: Record<string, string>;
}

let server: TestServer;
let world: World;
const actors: Actor[] = [];

// biome-ignore lint/suspicious/noExplicitAny: tests assert on bodies rather than type them
type AnyReply = Reply<any>;

const admin = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
  const reply: AnyReply = await server.request(path, {
    method,
    ...(body !== undefined && { body }),
    ...(headers && { token: null, headers }),
  });
  if (reply.status >= 300)
    throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
};

const send = (actor: Actor, method: string, path: string, body: unknown): Promise<AnyReply> =>
  server.request(path, { method, token: null, headers: actor.headers, ...(body !== undefined && { body }) });

async function lastEvent(): Promise<number> {
  const { rows } = await sql<{ id: number | null }>`select max(id) as id from events`.execute(server.db);
  return Number(rows[0]?.id ?? 0);
}
async function eventsAfter(id: number): Promise<string[]> {
  const { rows } = await sql<{ type: string }>`select type from events where id > ${id} order by id`.execute(
    server.db,
  );
  return rows.map((row) => row.type);
}

const snippet = (value: unknown, length = 160) => {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return text.length > length ? `${text.slice(0, length)}…` : text;
};

/** An answer as compared: its status and body, less the error's id, which is new each time. */
function comparable(reply: AnyReply, text = JSON.stringify(reply.body ?? null)): string {
  const body = JSON.parse(text);
  if (body && typeof body === "object" && "message" in body) delete body.id;
  return `${reply.status} ${JSON.stringify(body)}`;
}

function judge(
  want: Expectation,
  reply: AnyReply,
  ghost: AnyReply | undefined,
  request: string,
): string | undefined {
  const text = JSON.stringify(reply.body ?? null);
  const leaked = markersOf(world).filter((marker) => named(marker, text) && !named(marker, request));
  if (leaked.length > 0) return `shows ${leaked.join(", ")} of the private project`;
  const refusal = reply.body?.name;
  switch (want) {
    case "no-leak":
      return reply.status >= 500 ? "server error" : undefined;
    case "403":
      return reply.status === 403 && refusal === "NoAccessError" ? undefined : "expected 403 NoAccessError";
    case "403|404":
      return (reply.status === 403 && refusal === "NoAccessError") ||
        (reply.status === 404 && refusal === "NotFoundError")
        ? undefined
        : "expected 403 NoAccessError or 404 NotFoundError (not in that project)";
    case "refused":
      return [400, 403, 404, 409].includes(reply.status) ? undefined : "expected a refusal";
    case "absent": {
      if (reply.status === 404 && refusal === "NotFoundError") return undefined;
      if (!ghost)
        return [400, 403].includes(reply.status) ? undefined : "expected 404, as for a missing object";
      const mine = comparable(reply);
      const missing = comparable(ghost, unghost(world, JSON.stringify(ghost.body ?? null)));
      return mine === missing
        ? undefined
        : `answers unlike for a missing object, which gets ${snippet(missing)}`;
    }
    default:
      return undefined;
  }
}

/** Events that reads record by design (who exported what): not writes of an attempt. */
const AUDIT_EVENTS = new Set(["features-exported"]);
const AUDITED_TABLES = ["events", "revision"];

const ORDER: Record<string, number> = { GET: 0, POST: 1, PUT: 1, PATCH: 1, DELETE: 2 };

async function buildWorld(): Promise<World> {
  const root = await createUser(server, { rootRole: "Admin", username: "root-admin" });
  const rootSession = { cookie: await login(server, root.username, root.password) };
  const bystander = await createUser(server, { rootRole: "Viewer", username: "bystander" });
  const globalSegment = (
    await admin("POST", "/api/admin/segments", { name: "global-segment", constraints: [] })
  ).id;
  await admin("POST", "/api/admin/context", { name: "global-context", legalValues: [{ value: "gold" }] });
  await admin("POST", "/api/admin/tag-types", { name: "global-tagtype" });
  await admin("POST", "/api/admin/strategies", { name: "global-strategy", parameters: [] });
  const role = (type: string) =>
    admin("POST", "/api/admin/roles", { name: `global-${type}`, type, permissions: [] });
  const rootRole = (await role("root-custom")).id;
  const projectRole = (await role("custom")).id;
  const group = (await admin("POST", "/api/admin/groups", { name: "global-group", users: [] })).id;
  const serviceAccount = (
    await admin("POST", "/api/admin/service-account", {
      username: "global-sa",
      name: "global-sa",
      rootRole: 3,
    })
  ).id;
  const serviceToken = (
    await admin("POST", `/api/admin/service-account/${serviceAccount}/token`, {
      description: "sa",
      expiresAt: inAWeek(),
    })
  ).id;
  const everywhereAddon = (await admin("POST", "/api/admin/addons", webhook("everywhere", []))).id;
  const everywhereToken = (
    await admin("POST", "/api/admin/api-tokens", {
      tokenName: "everywhere-token",
      type: "client",
      environment: DEV,
      projects: ["*"],
    })
  ).id;
  const othersPat = (
    await admin(
      "POST",
      "/api/admin/user/tokens",
      { description: "admin's", expiresAt: inAWeek() },
      rootSession,
    )
  ).id;

  const template = (await admin("POST", "/api/admin/release-plan-templates", RELEASE_TEMPLATE)).id;
  const at = {} as Record<Place, ProjectObjects>;
  for (const p of PLACES) {
    if (p !== "default") {
      await admin("POST", "/api/admin/projects", { id: p, name: p, mode: p === "hush" ? "private" : "open" });
    }
    const base = `/api/admin/projects/${p}`;
    const flagPath = `${base}/features/${p}-flag`;
    const segment = (
      await admin("POST", "/api/admin/segments", { name: `${p}-segment`, project: p, constraints: [] })
    ).id;
    for (const name of ["flag", "parent", "gone"])
      await admin("POST", `${base}/features`, { name: `${p}-${name}` });
    const strategy = (
      await admin("POST", `${flagPath}/environments/${DEV}/strategies`, {
        name: "default",
        segments: [segment, globalSegment],
      })
    ).id;
    const prodStrategy = (
      await admin("POST", `${flagPath}/environments/${PROD}/strategies`, {
        name: "default",
        segments: [segment],
      })
    ).id;
    await admin("POST", `${flagPath}/dependencies`, { feature: `${p}-parent` });
    await admin("DELETE", `${base}/features/${p}-gone`);
    await admin("POST", `/api/admin/features/${p}-flag/tags`, { type: "simple", value: `${p}-tag` });
    const token = (
      await admin("POST", "/api/admin/api-tokens", {
        tokenName: `${p}-token`,
        type: "client",
        environment: DEV,
        projects: [p],
      })
    ).id;
    const grantee = await createUser(server, { rootRole: "Viewer", username: `grantee-of-${p}` });
    const granteeGroup = (await admin("POST", "/api/admin/groups", { name: `group-of-${p}`, users: [] })).id;
    await admin("POST", `${base}/access`, { roles: [5], users: [grantee.id], groups: [granteeGroup] });
    const addon = (await admin("POST", "/api/admin/addons", webhook(p, [p]))).id;
    const releases = {} as ProjectObjects["releases"];
    for (const env of [DEV, PROD] as const) {
      const place = `${flagPath}/environments/${env}`;
      const plan = await admin("POST", `${place}/release-plans`, { templateId: template });
      releases[env] = {
        plan: plan.id,
        milestone: plan.milestones[0].id,
        planSafeguard: (await admin("PUT", `${place}/release-plans/${plan.id}/safeguards`, SAFEGUARD)).id,
        envSafeguard: (await admin("PUT", `${place}/safeguards`, SAFEGUARD)).id,
      };
    }
    let request: { id: number; features: { changes: { id: number }[] }[] } | undefined;
    if (p !== "default") {
      await admin("PUT", `${base}/environments/${PROD}/change-requests/config`, {
        changeRequestsEnabled: true,
        requiredApprovals: 1,
      });
      request = await admin(
        "POST",
        `${base}/environments/${PROD}/change-requests`,
        { feature: `${p}-flag`, action: "updateEnabled", payload: { enabled: true } },
        rootSession,
      );
      await admin("PUT", `${base}/change-requests/${request!.id}/state`, { state: "In review" }, rootSession);
    }
    at[p] = {
      project: p,
      flag: `${p}-flag`,
      parent: `${p}-parent`,
      gone: `${p}-gone`,
      tag: `${p}-tag`,
      strategy,
      prodStrategy,
      segment,
      segmentName: `${p}-segment`,
      token,
      addon,
      grantee: grantee.id,
      group: granteeGroup,
      request: request?.id,
      change: request?.features[0]?.changes[0]?.id,
      template,
      releases,
      version: Number(
        (
          await sql<{
            id: number;
          }>`select max(id) as id from events where feature_name = ${`${p}-flag`}`.execute(server.db)
        ).rows[0]!.id,
      ),
    };
  }

  // An application whose SDK evaluated the private project's flag.
  const started = new Date().toISOString();
  await admin(
    "POST",
    "/api/client/register",
    {
      appName: "shop-app",
      instanceId: "shop-1",
      sdkVersion: "unleash-client-node:5.0.0",
      strategies: ["default"],
      started,
      interval: 10_000,
    },
    { authorization: CLIENT_TOKEN },
  );
  await admin(
    "POST",
    "/api/client/metrics",
    {
      appName: "shop-app",
      instanceId: "shop-1",
      bucket: {
        start: new Date(Date.now() - 60_000).toISOString(),
        stop: new Date().toISOString(),
        toggles: { "hush-flag": { yes: 1, no: 1 }, "theirs-flag": { yes: 1, no: 0 } },
      },
    },
    { authorization: CLIENT_TOKEN },
  );

  const own = {} as World["own"];
  for (const role of ROLES) {
    const user = await createUser(server, {
      rootRole: role === "editor" ? "Editor" : "Viewer",
      username: role,
    });
    if (role !== "editor") {
      await admin("POST", "/api/admin/projects/ours/access", {
        roles: [role === "owner" ? 4 : 5],
        users: [user.id],
        groups: [],
      });
    }
    const session = { cookie: await login(server, user.username, user.password) };
    actors.push({ name: `${role} (session)`, role, headers: session });
    // A personal access token reaches the same checks once it is known whose it is: one
    // person's is enough to show that, and keeps the run short.
    if (role === "owner") {
      const pat = await admin(
        "POST",
        "/api/admin/user/tokens",
        { description: "probe", expiresAt: inAWeek() },
        session,
      );
      actors.push({ name: `${role} (PAT)`, role, headers: { authorization: pat.secret } });
    }
    // Their own draft, holding one change of each action they may draft.
    const drafted = (Object.keys(ACTION_SPECS) as Action[]).filter((action) =>
      role === "owner" ? true : role === "member" ? !isSegmentAction(action) : isSegmentAction(action),
    );
    const draft = await admin(
      "POST",
      `${OURS}/environments/${PROD}/change-requests`,
      drafted.map((action) => ({
        ...(isSegmentAction(action) ? {} : { feature: "ours-flag" }),
        action,
        payload: PAYLOADS[action](at.ours),
      })),
      session,
    );
    const changes: Partial<Record<Action, number>> = {};
    for (const change of [
      ...draft.features.flatMap((flag: { changes: unknown[] }) => flag.changes),
      ...draft.segments,
    ] as { id: number; action: Action }[]) {
      changes[change.action] = change.id;
    }
    own[role] = { draft: draft.id, changes };
  }

  return {
    at,
    globalSegment,
    rootRole,
    projectRole,
    group,
    admin: root.id,
    bystander: bystander.id,
    serviceAccount,
    serviceToken,
    everywhereAddon,
    everywhereToken,
    othersPat,
    own,
  };
}

beforeAll(async () => {
  server = await startTestServer();
  world = await buildWorld();
}, 120_000);
afterAll(() => server?.close());

describe("objects named by id", () => {
  it("every admin route that names an object, in its path or its body, is attacked here or excluded with a reason", () => {
    const routes = adminRoutes(server);
    const attacked = new Set(allAttempts(routes).map((a) => a.route));
    const keys = new Set(routes.map((route) => route.key));
    const unknown = [...attacked].filter((key) => !keys.has(key));
    const open = routes.filter(
      (route) => namesObjects(route) && !attacked.has(route.key) && !EXCLUDED[route.key],
    );
    const stale = Object.keys(EXCLUDED).filter((key) => !keys.has(key) || attacked.has(key));
    expect({ unknown, open: open.map((route) => route.key), stale }).toEqual({
      unknown: [],
      open: [],
      stale: [],
    });
  });

  it("sends bodies its routes accept, so that what refuses an attempt is never the body's shape", () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const routes = adminRoutes(server);
    const schemas = new Map(routes.map((route) => [route.key, route.body]));
    const misfits = new Set<string>();
    for (const a of allAttempts(routes)) {
      const schema = schemas.get(a.route);
      for (const role of ROLES) {
        if (a.path(world, role) === undefined) continue;
        const body = a.body?.(world, role);
        if (!schema) {
          if (body !== undefined) misfits.add(`${a.route}: a body for a route that takes none`);
        } else if (!ajv.validate(schema, body)) {
          misfits.add(`${a.route} ${snippet(body)}: ${ajv.errorsText()}`);
        }
      }
    }
    expect([...misfits]).toEqual([]);
  });

  it("are refused to whoever may not see or change them, and nothing is written", {
    timeout: 300_000,
  }, async () => {
    const routes = new Map(adminRoutes(server).map((route) => [route.key, route]));
    const attempts = allAttempts([...routes.values()]);
    const byRoute = new Map<string, Attempt[]>();
    for (const a of attempts) byRoute.set(a.route, [...(byRoute.get(a.route) ?? []), a]);
    const order = [...byRoute.keys()].sort(
      (x, y) => (ORDER[x.split(" ")[0]!] ?? 1) - (ORDER[y.split(" ")[0]!] ?? 1),
    );
    const ghost = ghostOf(world);
    const failures: string[] = [];
    let tried = 0;
    let before = await fingerprint(server);
    let start = await lastEvent();
    for (const [index, key] of order.entries()) {
      const route = routes.get(key)!;
      for (const a of byRoute.get(key)!) {
        for (const actor of actors) {
          const want = expectationFor(actor.role, a, route.method, route.permission);
          const path = a.path(world, actor.role);
          if (want === "allowed" || path === undefined) continue;
          const body = a.body?.(world, actor.role);
          const mark = route.method === "GET" ? 0 : await lastEvent();
          const reply = await send(actor, route.method, path, body);
          let missing: AnyReply | undefined;
          if (want === "absent" && !a.noGhost) {
            missing = await send(
              actor,
              route.method,
              a.path(ghost, actor.role)!,
              a.body?.(ghost, actor.role),
            );
          }
          tried++;
          const request = `${path} ${JSON.stringify(body ?? null)}`;
          const wrong = judge(want, reply, missing, request);
          const written =
            route.method === "GET" ? [] : (await eventsAfter(mark)).filter((type) => !AUDIT_EVENTS.has(type));
          if (wrong || written.length > 0) {
            failures.push(
              `${key}\n    ${actor.name}: ${route.method} ${path}${body === undefined ? "" : ` ${snippet(body, 120)}`}\n    → ${reply.status} ${snippet(reply.body)}\n    ${[wrong, written.length > 0 && `wrote ${written.join(", ")}`].filter(Boolean).join("; ")}`,
            );
          }
        }
      }
      // Reads are fingerprinted once, all together: they come first.
      const reads = route.method === "GET";
      if (reads && order[index + 1]?.startsWith("GET ")) continue;
      const after = await fingerprint(server);
      const since = await eventsAfter(start);
      const audited = since.length > 0 && since.every((type) => AUDIT_EVENTS.has(type));
      const changed = Object.keys(after).filter(
        (table) => after[table] !== before[table] && !(audited && AUDITED_TABLES.includes(table)),
      );
      before = after;
      start = await lastEvent();
      if (changed.length > 0) {
        failures.push(`${reads ? "the reads" : key}\n    changed the tables ${changed.join(", ")}`);
      }
    }
    expect(tried).toBeGreaterThan(500);
    expect(failures.join("\n")).toBe("");
  });
});
