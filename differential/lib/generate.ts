// The configuration both services receive, generated from a seed: the admin API calls to
// send, in order, and the pools the evaluation contexts draw from so that constraints,
// user lists and address lists are actually hit.
import { hostname } from "node:os";
import type { Random } from "@signalbox/server/compare";

export type Method = "POST" | "PUT" | "PATCH" | "DELETE";

/** Ids each service hands out (segments, strategies), by the name the plan gives them. */
export interface Ids {
  segments: Map<string, number>;
  strategies: Map<string, string>;
  /** API token secrets, by `<type>:<environment>`. */
  tokens: Map<string, string>;
}

export interface Step {
  /** Says what the call is for, in reports. */
  label: string;
  /** The flag the call configures: once the services disagree on one of its calls, it is set aside. */
  flag?: string;
  method: Method;
  path: (ids: Ids) => string;
  body?: (ids: Ids) => unknown;
  /** Records an id the answer carries, for later calls. */
  remember?: (ids: Ids, answer: unknown) => void;
  /**
   * The reference's open-source edition has no route for this (projects and environments
   * are created through its paid edition's API); its process does it through its services.
   */
  referenceIpc?: "createEnvironment" | "createProject";
  /** A call at the edge of what is valid: both services must agree on accepting it. */
  probe?: boolean;
  /** Other flags the call names (a dependency's parent): if they were set aside, so is this one. */
  related?: string[];
  /** Steps of one group run in order (by default, a flag's steps); groups run in parallel. */
  group?: string;
}

export interface Plan {
  /** Steps in phases: a phase's flags run in parallel, each flag's steps in order. */
  phases: { name: string; steps: Step[]; sequential?: boolean }[];
  environments: string[];
  projects: { id: string; environments: string[]; defaultStickiness?: string }[];
  flagCount: number;
  probeCount: number;
  /** By environment, a flag created last and enabled there: once served, everything before it is. */
  sentinels: Map<string, string>;
}

export const CUSTOM_STICKINESS = "tenantId";
export const HOSTNAME = hostname();

export const POOLS = {
  userIds: Array.from({ length: 300 }, (_, i) => `user-${i + 1}`),
  tenants: Array.from({ length: 25 }, (_, i) => `t-${i + 1}`),
  addresses: [
    ...Array.from({ length: 12 }, (_, i) => `10.0.0.${i + 1}`),
    "10.0.1.9",
    "192.168.1.7",
    "192.168.1.200",
    "172.16.5.4",
    "2001:db8::1",
  ],
  appNames: ["web", "ios", "android", "checkout-service"],
  plans: ["free", "pro", "enterprise"],
  countries: ["NO", "SE", "DK", "us", "Us", "de"],
  versions: [
    "0.9.9",
    "1.0.0",
    "1.2.3",
    "1.2.3-beta.1",
    "1.2.10",
    "2.0.0-rc.1",
    "2.0.0",
    "10.1.0",
    "not-a-version",
  ],
  ages: ["9", "17", "18", "30", "42", "65", "80", "3.5", "-1", "abc"],
  emails: [
    "alice@example.com",
    "Alice@Example.COM",
    "bob@example.org",
    "carol@corp.example.com",
    "dave@EXAMPLE.com",
    "eve@test.io",
  ],
};

const VARIANT_NAMES = [
  "blue",
  "red",
  "control",
  "Green",
  "treatment-a",
  "Treatment-B",
  "zeta",
  "alpha",
  "_underscore",
  "v1",
  "V2",
  "10",
  "9",
];

const FEATURE_TYPES = ["release", "experiment", "operational", "kill-switch", "permission"];

/** Dates in the span the contexts' currentTime is drawn from (2024 to 2027). */
export const TIME_SPAN = { from: Date.parse("2024-01-01T00:00:00Z"), to: Date.parse("2028-01-01T00:00:00Z") };

interface Constraint {
  contextName: string;
  operator: string;
  values?: string[];
  value?: string;
  inverted?: boolean;
  caseInsensitive?: boolean;
}

interface Variant {
  name: string;
  weight: number;
  weightType?: "variable" | "fix";
  stickiness?: string;
  payload?: { type: string; value: string };
  overrides?: { contextName: string; values: string[] }[];
}

const json = (value: unknown) => JSON.stringify(value);

function isoDay(random: Random): string {
  const time = TIME_SPAN.from + random.next() * (TIME_SPAN.to - TIME_SPAN.from);
  const date = new Date(Math.floor(time / 3_600_000) * 3_600_000);
  return date.toISOString();
}

export function constraint(random: Random): Constraint {
  const family = random.pick(["IN", "STR", "NUM", "DATE", "SEMVER", "REGEX"] as const);
  const inverted = random.chance(0.25) ? true : random.chance(0.2) ? false : undefined;
  switch (family) {
    case "IN": {
      const [contextName, pool] = random.pick([
        ["userId", POOLS.userIds.slice(0, 40)],
        ["appName", POOLS.appNames],
        ["environment", ["development", "production", "staging", "qa", "default"]],
        ["plan", POOLS.plans],
        ["country", POOLS.countries],
        [CUSTOM_STICKINESS, POOLS.tenants],
        ["remoteAddress", POOLS.addresses],
        ["sessionId", ["s-1", "s-2", "s-3"]],
      ] as const);
      return {
        contextName,
        operator: random.pick(["IN", "NOT_IN"]),
        values: random.some(pool, 1, 4),
        ...(inverted === undefined ? {} : { inverted }),
        ...(random.chance(0.2) ? { caseInsensitive: random.chance(0.5) } : {}),
      };
    }
    case "STR": {
      const [contextName, pool] = random.pick([
        ["email", ["alice", "ALICE", "@example.com", "@EXAMPLE.COM", "corp", "example.org", ".io"]],
        ["country", ["u", "U", "N", "e"]],
        ["userId", ["user-1", "user-2", "USER-", "0"]],
        ["appName", ["web", "WEB", "service", "i"]],
      ] as const);
      return {
        contextName,
        operator: random.pick(["STR_STARTS_WITH", "STR_ENDS_WITH", "STR_CONTAINS"]),
        values: random.some(pool, 1, 3),
        ...(inverted === undefined ? {} : { inverted }),
        ...(random.chance(0.6) ? { caseInsensitive: random.chance(0.6) } : {}),
      };
    }
    case "NUM":
      return {
        contextName: "age",
        operator: random.pick(["NUM_EQ", "NUM_GT", "NUM_GTE", "NUM_LT", "NUM_LTE"]),
        value: random.pick(["18", "30", "65", "3.5", "0", "-1", "42"]),
        ...(inverted === undefined ? {} : { inverted }),
      };
    case "DATE":
      return {
        contextName: "currentTime",
        operator: random.pick(["DATE_AFTER", "DATE_BEFORE"]),
        value: isoDay(random),
        ...(inverted === undefined ? {} : { inverted }),
      };
    case "SEMVER":
      return {
        contextName: "version",
        operator: random.pick(["SEMVER_EQ", "SEMVER_GT", "SEMVER_LT"]),
        value: random.pick(["1.0.0", "1.2.3", "2.0.0-rc.1", "2.0.0", "1.2.3-beta.1", "10.0.0"]),
        ...(inverted === undefined ? {} : { inverted }),
      };
    case "REGEX":
      // The reference refuses an inverted REGEX constraint.
      return {
        contextName: random.pick(["email", "userId"]),
        operator: "REGEX",
        value: random.pick(["^[a-z]+@example\\.com$", "user-1\\d$", "EXAMPLE", "^(alice|bob)@", "\\d{2,}"]),
        ...(random.chance(0.5) ? { caseInsensitive: random.chance(0.6) } : {}),
      };
  }
}

function payload(random: Random): Variant["payload"] {
  switch (random.int(0, 4)) {
    case 0:
      return undefined;
    case 1:
      return { type: "string", value: random.pick(["on", "Hello, world", "ünïcödé ✓"]) };
    case 2:
      return {
        type: "json",
        value: random.pick([
          json({ color: "blue", size: 3 }),
          json([1, 2, 3]),
          "{}",
          json({ nested: { a: [true] } }),
        ]),
      };
    case 3:
      return { type: "number", value: random.pick(["42", "3.14", "-7"]) };
    default:
      return { type: "csv", value: "a,b,c" };
  }
}

export function variants(
  random: Random,
  options: { overrides: boolean; requireComplete: boolean; count?: number },
): Variant[] {
  const names = random.some(VARIANT_NAMES, options.count ?? 1, options.count ?? 4);
  // At least one variable variant and fixed weights of at most 1000: the reference's rules.
  let fixedLeft = 1000;
  const list = names.map((name, index): Variant => {
    const fix = index > 0 && random.chance(0.35) && fixedLeft >= 50;
    const weight = fix ? random.int(1, Math.min(400, fixedLeft) / 50) * 50 : random.int(0, 1000);
    if (fix) fixedLeft -= weight;
    const variant: Variant = { name, weight };
    if (options.requireComplete || random.chance(0.7)) variant.weightType = fix ? "fix" : "variable";
    if (options.requireComplete || random.chance(0.6)) {
      variant.stickiness = random.pick(["default", "default", "userId", "sessionId", CUSTOM_STICKINESS]);
    }
    const content = payload(random);
    if (content) variant.payload = content;
    if (options.overrides && random.chance(0.3)) {
      variant.overrides = [
        random.chance(0.5)
          ? { contextName: "userId", values: random.some(POOLS.userIds.slice(0, 30), 1, 3) }
          : { contextName: CUSTOM_STICKINESS, values: random.some(POOLS.tenants, 1, 2) },
      ];
    }
    return variant;
  });
  // A fixed-only list is refused by the reference; keep the first one variable.
  if (list[0] && list[0].weightType === undefined && !options.requireComplete)
    list[0].weightType = "variable";
  return list;
}

interface StrategyBody {
  name: string;
  title?: string | null;
  disabled?: boolean;
  sortOrder?: number;
  parameters?: Record<string, string>;
  constraints?: Constraint[];
  segments?: string[];
  variants?: Variant[];
}

const STRATEGY_KINDS = [
  "default",
  "flexibleRollout",
  "flexibleRollout",
  "flexibleRollout",
  "flexibleRollout",
  "userWithId",
  "remoteAddress",
  "applicationHostname",
  "gradualRolloutUserId",
  "gradualRolloutSessionId",
  "gradualRolloutRandom",
  "tenantGate",
] as const;

export function strategy(
  random: Random,
  flag: string,
  segments: string[],
  kind: (typeof STRATEGY_KINDS)[number] = random.pick(STRATEGY_KINDS),
): StrategyBody {
  const body: StrategyBody = { name: kind };
  const percentage = () => String(random.pick([0, 1, 10, 25, 33, 50, 67, 75, 99, 100]));
  switch (kind) {
    case "default":
      if (random.chance(0.5)) body.parameters = {};
      break;
    case "flexibleRollout": {
      const parameters: Record<string, string> = { rollout: percentage() };
      const stickiness = random.pick(["default", "userId", "sessionId", "random", CUSTOM_STICKINESS, ""]);
      if (stickiness) parameters.stickiness = stickiness;
      // An empty groupId becomes the flag's name on the reference.
      if (random.chance(0.6)) parameters.groupId = random.pick([flag, "groupA", "groupB", ""]);
      if (random.chance(0.1)) delete parameters.rollout;
      body.parameters = parameters;
      break;
    }
    case "userWithId":
      body.parameters = {
        userIds: random.some(POOLS.userIds.slice(0, 60), 1, 8).join(random.pick([",", ", "])),
      };
      break;
    case "remoteAddress":
      body.parameters = {
        IPs: [...random.some(POOLS.addresses, 1, 4), ...(random.chance(0.4) ? ["10.0.0.0/29"] : [])].join(
          ", ",
        ),
      };
      break;
    case "applicationHostname":
      body.parameters = { hostNames: random.chance(0.5) ? `${HOSTNAME},elsewhere` : "elsewhere,nowhere" };
      break;
    case "gradualRolloutUserId":
    case "gradualRolloutSessionId":
      body.parameters = { percentage: percentage(), groupId: random.pick([flag, "legacy"]) };
      break;
    case "gradualRolloutRandom":
      body.parameters = { percentage: percentage() };
      break;
    case "tenantGate":
      body.parameters = { tenants: random.some(POOLS.tenants, 1, 3).join(",") };
      break;
  }
  if (random.chance(0.6))
    body.constraints = Array.from({ length: random.int(1, 3) }, () => constraint(random));
  if (segments.length > 0 && random.chance(0.3)) body.segments = random.some(segments, 1, 2);
  if (random.chance(0.35)) body.variants = variants(random, { overrides: false, requireComplete: true });
  if (random.chance(0.1)) body.disabled = true;
  if (random.chance(0.2)) body.title = random.pick(["Rollout", "Beta users", null]);
  return body;
}

/** Resolves segment names to the ids a service gave them. */
export function withSegmentIds(body: StrategyBody, ids: Ids) {
  const { segments, ...rest } = body;
  return segments ? { ...rest, segments: segments.map((name) => ids.segments.get(name) ?? -1) } : rest;
}

export function generate(random: Random, flagCount: number): Plan {
  const environments = ["development", "production", "staging", "qa"];
  const projects: Plan["projects"] = [
    { id: "default", environments: ["development", "production"] },
    { id: "payments", environments: ["development", "production", "staging"] },
    { id: "mobile", environments: ["development", "staging", "qa"], defaultStickiness: "userId" },
  ];
  const setup: Step[] = [
    {
      label: "create environment staging",
      method: "POST",
      path: () => "/api/admin/environments",
      body: () => ({ name: "staging", type: "test", enabled: true, sortOrder: 300 }),
      referenceIpc: "createEnvironment",
    },
    {
      label: "create environment qa",
      method: "POST",
      path: () => "/api/admin/environments",
      body: () => ({ name: "qa", type: "development", enabled: true, sortOrder: 400 }),
      referenceIpc: "createEnvironment",
    },
    ...projects
      .filter((project) => project.id !== "default")
      .map(
        (project): Step => ({
          label: `create project ${project.id}`,
          method: "POST",
          path: () => "/api/admin/projects",
          body: () => ({
            id: project.id,
            name: `Project ${project.id}`,
            environments: project.environments,
            // A flexibleRollout without stickiness takes its project's default.
            ...(project.defaultStickiness ? { defaultStickiness: project.defaultStickiness } : {}),
          }),
          referenceIpc: "createProject",
        }),
      ),
    {
      label: `context field ${CUSTOM_STICKINESS} (stickiness)`,
      method: "POST",
      path: () => "/api/admin/context",
      body: () => ({ name: CUSTOM_STICKINESS, stickiness: true, description: "Tenant" }),
    },
    {
      label: "context field plan (legal values)",
      method: "POST",
      path: () => "/api/admin/context",
      body: () => ({ name: "plan", legalValues: POOLS.plans.map((value) => ({ value })) }),
    },
    ...["country", "version", "age", "email"].map(
      (name): Step => ({
        label: `context field ${name}`,
        method: "POST",
        path: () => "/api/admin/context",
        body: () => ({ name }),
      }),
    ),
    // Strategy types a fresh reference lacks (userWithId is not among its built-in types;
    // the gradual rollouts were dropped in v5) but the Node SDK still implements, and one
    // custom type no SDK knows: what a user who migrated from an older Unleash has.
    ...[
      ["userWithId", ["userIds"]],
      ["gradualRolloutUserId", ["percentage", "groupId"]],
      ["gradualRolloutSessionId", ["percentage", "groupId"]],
      ["gradualRolloutRandom", ["percentage"]],
      ["tenantGate", ["tenants"]],
    ].map(
      ([name, parameters]): Step => ({
        label: `strategy type ${name}`,
        method: "POST",
        path: () => "/api/admin/strategies",
        body: () => ({
          name,
          parameters: (parameters as string[]).map((parameter) => ({
            name: parameter,
            type: parameter === "percentage" ? "percentage" : "string",
          })),
        }),
      }),
    ),
  ];

  const segmentNames = Array.from({ length: random.int(6, 10) }, (_, i) => `segment-${i + 1}`);
  const segments: Step[] = segmentNames.map((name) => ({
    label: `segment ${name}`,
    method: "POST",
    path: () => "/api/admin/segments",
    body: () => ({
      name,
      description: random.chance(0.5) ? "generated" : undefined,
      constraints: Array.from({ length: random.int(1, 3) }, () => constraint(random)),
    }),
    remember: (ids, answer) => ids.segments.set(name, (answer as { id: number }).id),
  }));
  // Bodies are generated now, not when sent, so both services get the same ones.
  for (const step of segments) {
    const body = step.body!({ segments: new Map(), strategies: new Map(), tokens: new Map() });
    step.body = () => body;
  }

  const flagSteps: Step[] = [];
  const dependencySteps: Step[] = [];
  const laterSteps: Step[] = [];
  interface FlagInfo {
    name: string;
    project: string;
    variantNames: string[];
    hasLegacyVariants: boolean;
  }
  const flags: FlagInfo[] = [];
  for (let i = 0; i < flagCount; i++) {
    const project = random.pick(projects);
    const name = `flag-${String(i + 1).padStart(3, "0")}${random.chance(0.2) ? `.${random.pick(["a", "B", "x_y"])}` : ""}`;
    const base = `/api/admin/projects/${project.id}/features/${name}`;
    const info: FlagInfo = { name, project: project.id, variantNames: [], hasLegacyVariants: false };
    flags.push(info);
    const create: Record<string, unknown> = { name };
    if (random.chance(0.7)) create.type = random.pick(FEATURE_TYPES);
    if (random.chance(0.4)) create.description = random.pick(["Generated flag", "", null]);
    if (random.chance(0.3)) create.impressionData = random.chance(0.5);
    // Variants sent with the flag itself: how flag-level variants are made on the reference,
    // which refuses new environment variants on flags that have none.
    if (random.chance(0.18)) {
      const list = variants(random, { overrides: true, requireComplete: false });
      create.variants = list;
      info.hasLegacyVariants = true;
      info.variantNames.push(...list.map((variant) => variant.name));
    }
    flagSteps.push({
      label: `create ${name}`,
      flag: name,
      method: "POST",
      path: () => `/api/admin/projects/${project.id}/features`,
      body: () => create,
    });
    for (const environment of project.environments) {
      const env = `${base}/environments/${environment}`;
      const count = random.pick([0, 1, 1, 1, 2, 2, 3]);
      const bodies: StrategyBody[] = [];
      for (let s = 0; s < count; s++) {
        const body = strategy(random, name, segmentNames);
        if (random.chance(0.15)) body.sortOrder = random.int(0, 20);
        bodies.push(body);
        info.variantNames.push(...(body.variants ?? []).map((variant) => variant.name));
        const key = `${name}/${environment}/${s}`;
        flagSteps.push({
          label: `${name} ${environment}: add ${body.name} strategy`,
          flag: name,
          method: "POST",
          path: () => `${env}/strategies`,
          body: (ids) => withSegmentIds(body, ids),
          remember: (ids, answer) => ids.strategies.set(key, (answer as { id: string }).id),
        });
      }
      if (info.hasLegacyVariants && random.chance(0.5)) {
        const list = variants(random, { overrides: true, requireComplete: true });
        info.variantNames.push(...list.map((variant) => variant.name));
        flagSteps.push({
          label: `${name} ${environment}: set environment variants`,
          flag: name,
          method: "PUT",
          path: () => `${env}/variants`,
          body: () => list,
        });
        if (random.chance(0.3) && list.length > 1) {
          flagSteps.push({
            label: `${name} ${environment}: patch environment variants`,
            flag: name,
            method: "PATCH",
            path: () => `${env}/variants`,
            body: () => [{ op: "replace", path: "/0/name", value: "patched" }],
          });
          info.variantNames.push("patched");
        }
      }
      if (random.chance(0.65)) {
        flagSteps.push({
          label: `${name} ${environment}: enable`,
          flag: name,
          method: "POST",
          path: () => `${env}/on`,
        });
      }
      // Updates go through other code paths than creation (sorting, defaults).
      if (bodies.length > 0 && random.chance(0.15)) {
        const index = random.int(0, bodies.length - 1);
        const key = `${name}/${environment}/${index}`;
        const original = bodies[index]!;
        const update = strategy(random, name, segmentNames, original.name as (typeof STRATEGY_KINDS)[number]);
        info.variantNames.push(...(update.variants ?? []).map((variant) => variant.name));
        laterSteps.push({
          label: `${name} ${environment}: update strategy ${index + 1}`,
          flag: name,
          method: "PUT",
          path: (ids) => `${env}/strategies/${ids.strategies.get(key)}`,
          body: (ids) => withSegmentIds(update, ids),
        });
      } else if (bodies.length > 0 && random.chance(0.1)) {
        const index = random.int(0, bodies.length - 1);
        const key = `${name}/${environment}/${index}`;
        const patch =
          bodies[index]!.name === "flexibleRollout"
            ? [{ op: "replace", path: "/parameters/rollout", value: String(random.int(0, 100)) }]
            : [{ op: "replace", path: "/disabled", value: !bodies[index]!.disabled }];
        laterSteps.push({
          label: `${name} ${environment}: patch strategy ${index + 1}`,
          flag: name,
          method: "PATCH",
          path: (ids) => `${env}/strategies/${ids.strategies.get(key)}`,
          body: () => patch,
        });
      }
      if (bodies.length > 1 && random.chance(0.25)) {
        const keys = bodies.map((_, index) => `${name}/${environment}/${index}`).reverse();
        laterSteps.push({
          label: `${name} ${environment}: reverse the strategies' order`,
          flag: name,
          method: "POST",
          path: () => `${env}/strategies/set-sort-order`,
          body: (ids) => keys.map((key, sortOrder) => ({ id: ids.strategies.get(key), sortOrder })),
        });
      }
    }
    if (random.chance(0.05)) {
      // Variants set in several environments at once: a path that skips the reference's
      // refusal of new environment variants.
      const list = variants(random, { overrides: true, requireComplete: true });
      info.variantNames.push(...list.map((variant) => variant.name));
      laterSteps.push({
        label: `${name}: variants for all its environments in one batch`,
        flag: name,
        method: "PUT",
        path: () => `${base}/variants-batch`,
        body: () => ({ variants: list, environments: project.environments }),
      });
    }
    if (random.chance(0.12)) {
      laterSteps.push(
        random.chance(0.5)
          ? {
              label: `${name}: mark stale`,
              flag: name,
              method: "PATCH",
              path: () => base,
              body: () => [{ op: "replace", path: "/stale", value: true }],
            }
          : {
              label: `${name}: mark stale through the project`,
              flag: name,
              method: "POST",
              path: () => `/api/admin/projects/${project.id}/stale`,
              body: () => ({ features: [name], stale: true }),
            },
      );
    }
  }

  const changedSegment = random.pick(segmentNames);
  const changedConstraints = Array.from({ length: random.int(1, 2) }, () => constraint(random));
  laterSteps.push({
    label: `segment ${changedSegment}: new constraints`,
    method: "PUT",
    path: (ids) => `/api/admin/segments/${ids.segments.get(changedSegment)}`,
    body: () => ({ name: changedSegment, constraints: changedConstraints }),
  });

  // Dependencies: a child and its parents share a project, and a parent has no parents.
  const parents = new Set<string>();
  const children = new Set<string>();
  for (const child of flags) {
    if (!random.chance(0.15)) continue;
    const candidates = flags.filter(
      (flag) =>
        flag.project === child.project &&
        flag !== child &&
        !children.has(flag.name) &&
        !parents.has(child.name),
    );
    if (candidates.length === 0) continue;
    // The reference keeps one parent per flag (a second replaces the first): one here, and
    // a probe with two.
    for (const parent of random.some(candidates, 1, 1)) {
      const kind = random.int(0, 2);
      const dependency: Record<string, unknown> = { feature: parent.name };
      if (kind === 1) dependency.enabled = false;
      if (kind === 2 && parent.variantNames.length > 0) {
        dependency.enabled = true;
        dependency.variants = random.some([...new Set(parent.variantNames)], 1, 2);
      }
      parents.add(parent.name);
      children.add(child.name);
      dependencySteps.push({
        label: `${child.name}: depends on ${parent.name}`,
        flag: child.name,
        method: "POST",
        path: () => `/api/admin/projects/${child.project}/features/${child.name}/dependencies`,
        body: () => dependency,
        related: [parent.name],
      });
    }
  }
  // Archived flags vanish from what SDKs see; those in a dependency are left alone.
  for (const flag of flags) {
    if (parents.has(flag.name) || children.has(flag.name) || !random.chance(0.03)) continue;
    laterSteps.push({
      label: `${flag.name}: archive`,
      flag: flag.name,
      method: "DELETE",
      path: () => `/api/admin/projects/${flag.project}/features/${flag.name}`,
    });
  }

  // SDK tokens for the other environments (development's come from INIT_*_API_TOKENS),
  // made through the admin API as users make them.
  const tokens: Step[] = environments
    .filter((environment) => environment !== "development")
    .flatMap((environment) =>
      (["client", "frontend"] as const).map(
        (type): Step => ({
          label: `${type} token for ${environment}`,
          method: "POST",
          path: () => "/api/admin/api-tokens",
          body: () => ({
            tokenName: `differential-${type}-${environment}`,
            type,
            environment,
            projects: ["*"],
          }),
          remember: (ids, answer) =>
            ids.tokens.set(`${type}:${environment}`, (answer as { secret: string }).secret),
        }),
      ),
    );
  const probes = probeSteps();
  // One flag per environment, created last and enabled there: once a service serves it in
  // its SDK and frontend APIs, it serves everything sent before it.
  const sentinels = new Map<string, string>();
  const sentinelSteps: Step[] = [];
  for (const environment of environments) {
    const project = projects.find((candidate) => candidate.environments.includes(environment))!;
    const name = `zz-sentinel-${environment}`;
    sentinels.set(environment, name);
    sentinelSteps.push(
      {
        label: `create the sentinel flag for ${environment}`,
        flag: name,
        method: "POST",
        path: () => `/api/admin/projects/${project.id}/features`,
        body: () => ({ name }),
      },
      {
        label: `sentinel ${environment}: enable`,
        flag: name,
        method: "POST",
        path: () => `/api/admin/projects/${project.id}/features/${name}/environments/${environment}/on`,
      },
    );
  }
  return {
    phases: [
      // Environments before the projects that use them; segments in one order, so that
      // both services number them alike.
      { name: "setup", steps: setup, sequential: true },
      { name: "tokens", steps: tokens },
      { name: "segments", steps: segments, sequential: true },
      { name: "flags", steps: flagSteps },
      { name: "dependencies", steps: dependencySteps },
      { name: "updates", steps: laterSteps },
      { name: "probes", steps: probes.steps },
      { name: "sentinel", steps: sentinelSteps },
    ],
    environments,
    projects,
    flagCount: flags.length,
    probeCount: probes.count,
    sentinels,
  };
}

/**
 * Calls at the edge of what is valid, each on a flag of its own. The two services must
 * agree on accepting or refusing each; flags that both accept are evaluated like the rest.
 */
function probeSteps(): { steps: Step[]; count: number } {
  const steps: Step[] = [];
  let count = 0;
  type Call = Omit<Step, "label" | "flag" | "probe">;
  const at = (flag: string, project = "default") => `/api/admin/projects/${project}/features/${flag}`;
  const probe = (
    flag: string,
    label: string,
    options: {
      create?: Record<string, unknown>;
      createIsProbe?: boolean;
      project?: string;
      calls?: Call[];
      /** Probes that build on each other share a group, so their calls keep their order. */
      group?: string;
    },
  ) => {
    count++;
    const project = options.project ?? "default";
    const group = options.group;
    steps.push({
      group,
      label: `probe ${flag}: ${options.createIsProbe ? label : "create"}`,
      flag,
      method: "POST",
      path: () => `/api/admin/projects/${project}/features`,
      body: () => ({ name: flag, ...options.create }),
      probe: options.createIsProbe,
    });
    for (const call of options.calls ?? []) {
      steps.push({ ...call, label: `probe ${flag}: ${label}`, flag, probe: true, group });
    }
    steps.push({
      group,
      label: `probe ${flag}: enable`,
      flag,
      method: "POST",
      path: () => `${at(flag, project)}/environments/development/on`,
    });
  };
  const strategyCall = (flag: string, body: unknown): Call => ({
    method: "POST",
    path: () => `${at(flag)}/environments/development/strategies`,
    body: () => body,
  });
  const withStrategy = (name: string, label: string, body: unknown) =>
    probe(`probe-${name}`, label, { calls: [strategyCall(`probe-${name}`, body)] });
  const withConstraint = (name: string, label: string, constraint: Constraint) =>
    withStrategy(name, label, { name: "default", constraints: [constraint] });
  const variant = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    weight: 500,
    weightType: "variable",
    stickiness: "default",
    ...extra,
  });

  withConstraint("semver-gte", "SEMVER_GTE constraint", {
    contextName: "version",
    operator: "SEMVER_GTE",
    value: "1.2.3",
  });
  withConstraint("semver-lte", "SEMVER_LTE constraint", {
    contextName: "version",
    operator: "SEMVER_LTE",
    value: "2.0.0-rc.1",
  });
  withConstraint("in-cidr", "IN_CIDR constraint", {
    contextName: "remoteAddress",
    operator: "IN_CIDR",
    values: ["10.0.0.0/29"],
  });
  withConstraint("regex-inverted", "inverted REGEX constraint", {
    contextName: "email",
    operator: "REGEX",
    value: "example",
    inverted: true,
  });
  withConstraint("empty-value", "IN constraint with an empty string among its values", {
    contextName: "userId",
    operator: "IN",
    values: ["", "user-1"],
  });
  withConstraint("long-value", "constraint value of 101 characters", {
    contextName: "userId",
    operator: "IN",
    values: ["x".repeat(101)],
  });
  withConstraint("bad-date", "DATE_AFTER with a value that is not a date", {
    contextName: "currentTime",
    operator: "DATE_AFTER",
    value: "tomorrow",
  });
  withConstraint("date-only", "DATE_AFTER with a date and no time", {
    contextName: "currentTime",
    operator: "DATE_AFTER",
    value: "2026-01-01",
  });
  withConstraint("bad-number", "NUM_GT with a value that is not a number", {
    contextName: "age",
    operator: "NUM_GT",
    value: "old",
  });
  withConstraint("bad-semver", "SEMVER_EQ with a value that is not a full version", {
    contextName: "version",
    operator: "SEMVER_EQ",
    value: "1.2",
  });
  withConstraint("no-value", "NUM_EQ with values but no value", {
    contextName: "age",
    operator: "NUM_EQ",
    values: ["30"],
  });
  withConstraint("in-with-value", "IN with value but no values", {
    contextName: "userId",
    operator: "IN",
    value: "user-1",
  });
  withConstraint("illegal-plan", "constraint value outside the context field's legal values", {
    contextName: "plan",
    operator: "IN",
    values: ["platinum"],
  });
  withStrategy("variant-no-weighttype", "strategy variant without weightType", {
    name: "default",
    variants: [{ name: "a", weight: 500, stickiness: "default" }],
  });
  withStrategy("variant-no-stickiness", "strategy variant without stickiness", {
    name: "default",
    variants: [{ name: "a", weight: 500, weightType: "variable" }],
  });
  withStrategy("variant-all-fix", "strategy variants all of weightType fix", {
    name: "default",
    variants: [
      variant("a", { weightType: "fix", weight: 400 }),
      variant("b", { weightType: "fix", weight: 600 }),
    ],
  });
  withStrategy("variant-fix-over", "fixed strategy variant weights above 1000 in total", {
    name: "default",
    variants: [
      variant("a"),
      variant("b", { weightType: "fix", weight: 700 }),
      variant("c", { weightType: "fix", weight: 400 }),
    ],
  });
  withStrategy("variant-space", "strategy variant name with a space", {
    name: "default",
    variants: [variant("Blue Variant")],
  });
  withStrategy("variant-duplicate", "two strategy variants of one name", {
    name: "default",
    variants: [variant("a"), variant("a")],
  });
  withStrategy("variant-bad-json", "strategy variant whose json payload is not JSON", {
    name: "default",
    variants: [variant("a", { payload: { type: "json", value: "{nope" } })],
  });
  withStrategy("variant-empty-payload", "strategy variant whose string payload is empty", {
    name: "default",
    variants: [variant("a", { payload: { type: "string", value: "" } })],
  });
  withStrategy("variant-overrides", "strategy variant with overrides", {
    name: "default",
    variants: [variant("a", { overrides: [{ contextName: "userId", values: ["user-1"] }] })],
  });
  withStrategy("rollout-number", "flexibleRollout parameters given as numbers", {
    name: "flexibleRollout",
    parameters: { rollout: 50, stickiness: "userId", groupId: "n" },
  });
  withStrategy("unknown-strategy", "strategy of an unknown type", { name: "noSuchStrategy" });
  probe("probe-env-variants-new-flag", "environment variants on a flag created without variants", {
    calls: [
      {
        method: "PUT",
        path: () => `${at("probe-env-variants-new-flag")}/environments/development/variants`,
        body: () => [variant("blue"), variant("red")],
      },
    ],
  });
  probe("probe-flag-variants", "variants for the whole flag without an environment in the path", {
    create: { variants: [variant("one")] },
    calls: [
      {
        method: "PUT",
        path: () => `${at("probe-flag-variants")}/variants`,
        body: () => [variant("blue"), variant("red")],
      },
    ],
  });
  probe("probe-only-disabled", "an enabled flag whose only strategy is disabled", {
    calls: [strategyCall("probe-only-disabled", { name: "default", disabled: true })],
  });
  probe("probe-create-variants-raw", "flag created with variants whose weights do not add up to 1000", {
    createIsProbe: true,
    create: {
      variants: [
        { name: "red", weight: 300, weightType: "variable" },
        { name: "blue", weight: 500 },
        { name: "Amber", weight: 100, weightType: "fix", stickiness: "userId" },
      ],
    },
  });
  // The reference takes any name that encodeURIComponent leaves alone.
  probe("probe-name(2024)!", "flag name with parentheses and an exclamation mark", { createIsProbe: true });
  probe("probe-name-upper-CASE", "flag name with capitals", { createIsProbe: true });
  // A dependency across projects, and a chain of two: both refused by the reference.
  probe("probe-parent-elsewhere", "parent for a dependency across projects", {
    project: "payments",
    group: "cross-project",
  });
  probe("probe-cross-project", "dependency on a flag of another project", {
    group: "cross-project",
    calls: [
      {
        method: "POST",
        path: () => `${at("probe-cross-project")}/dependencies`,
        body: () => ({ feature: "probe-parent-elsewhere" }),
      },
    ],
  });
  probe("probe-parent-one", "first parent", { group: "two-parents" });
  probe("probe-parent-two", "second parent", { group: "two-parents" });
  probe("probe-two-parents", "a second dependency on another parent", {
    group: "two-parents",
    calls: ["probe-parent-one", "probe-parent-two"].map(
      (parent): Call => ({
        method: "POST",
        path: () => `${at("probe-two-parents")}/dependencies`,
        body: () => ({ feature: parent, enabled: true }),
      }),
    ),
  });
  probe("probe-chain-top", "top of a dependency chain", { group: "chain" });
  probe("probe-chain-middle", "middle of a dependency chain", {
    group: "chain",
    calls: [
      {
        method: "POST",
        path: () => `${at("probe-chain-middle")}/dependencies`,
        body: () => ({ feature: "probe-chain-top" }),
      },
    ],
  });
  probe("probe-chain-bottom", "dependency on a flag that has a parent", {
    group: "chain",
    calls: [
      {
        method: "POST",
        path: () => `${at("probe-chain-bottom")}/dependencies`,
        body: () => ({ feature: "probe-chain-middle" }),
      },
    ],
  });
  return { steps, count };
}
