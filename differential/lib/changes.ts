// Random admin changes after the generated configuration, one after another: what an SDK
// following a service must keep up with. Each is drawn from the seed, against what the
// service holds at that moment (its flags, strategies and segments), so a replayed seed
// makes the same changes.
import type { Random } from "@signalbox/server/compare";
import type { Answer } from "./apply.js";
import { constraint, type Plan, strategy, variants, withSegmentIds } from "./generate.js";

export type Admin = (method: string, path: string, body?: unknown) => Promise<Answer>;

export const CHANGE_KINDS = [
  "toggle",
  "add strategy",
  "update strategy",
  "remove strategy",
  "segment",
  "variants",
  "archive",
  "revive",
  "project environment",
  "token",
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

interface Flag {
  name: string;
  project: string;
}

/** What the changes work on, kept as they go: flags live and archived, segments, tokens made. */
export class ChangeState {
  archived: Flag[] = [];
  /** Environments taken from a project, to be given back. */
  removed: { project: string; environment: string }[] = [];
  tokens: number[] = [];

  constructor(
    readonly plan: Plan,
    readonly flags: Flag[],
    readonly segments: Map<string, number>,
  ) {}

  /** Reads the flags and segments a service holds after the plan. */
  static async read(admin: Admin, plan: Plan): Promise<ChangeState> {
    const flags: Flag[] = [];
    for (const project of plan.projects) {
      const listed = await admin("GET", `/api/admin/projects/${project.id}/features`);
      for (const feature of (listed.body as { features: { name: string }[] }).features) {
        flags.push({ name: feature.name, project: project.id });
      }
    }
    const listed = await admin("GET", "/api/admin/segments");
    const segments = new Map(
      (listed.body as { segments: { id: number; name: string }[] }).segments.map((segment) => [
        segment.name,
        segment.id,
      ]),
    );
    return new ChangeState(plan, flags, segments);
  }
}

export interface Made {
  kind: ChangeKind;
  label: string;
  status: number;
}

const environmentsOf = (state: ChangeState, project: string) =>
  state.plan.projects
    .find((candidate) => candidate.id === project)!
    .environments.filter(
      (environment) =>
        !state.removed.some((gone) => gone.project === project && gone.environment === environment),
    );

/** Makes one random change through the admin API; the service may refuse it, which counts too. */
export async function makeChange(random: Random, admin: Admin, state: ChangeState): Promise<Made> {
  const kind = random.pick(CHANGE_KINDS);
  const flag = random.pick(state.flags);
  const environment = random.pick(environmentsOf(state, flag.project));
  const base = `/api/admin/projects/${flag.project}/features/${flag.name}`;
  const at = `${base}/environments/${environment}`;
  const made = (label: string, answer: Answer): Made => ({ kind, label, status: answer.status });
  const segmentNames = [...state.segments.keys()];
  const ids = { segments: state.segments, strategies: new Map(), tokens: new Map() };
  switch (kind) {
    case "toggle": {
      const on = random.chance(0.5);
      return made(
        `${flag.name} ${on ? "on" : "off"} in ${environment}`,
        await admin("POST", `${at}/${on ? "on" : "off"}`),
      );
    }
    case "add strategy": {
      const body = withSegmentIds(strategy(random, flag.name, segmentNames), ids);
      return made(
        `${flag.name}: add ${body.name} in ${environment}`,
        await admin("POST", `${at}/strategies`, body),
      );
    }
    case "update strategy":
    case "remove strategy": {
      const listed = await admin("GET", `${at}/strategies`);
      const strategies = Array.isArray(listed.body) ? (listed.body as { id: string }[]) : [];
      if (strategies.length === 0) return made(`${flag.name}: no strategy in ${environment}`, listed);
      const { id } = random.pick(strategies);
      if (kind === "remove strategy") {
        return made(
          `${flag.name}: remove a strategy in ${environment}`,
          await admin("DELETE", `${at}/strategies/${id}`),
        );
      }
      const body = withSegmentIds(strategy(random, flag.name, segmentNames), ids);
      return made(
        `${flag.name}: update a strategy in ${environment}`,
        await admin("PUT", `${at}/strategies/${id}`, body),
      );
    }
    case "segment": {
      const name = random.pick(segmentNames);
      const body = { name, constraints: Array.from({ length: random.int(1, 3) }, () => constraint(random)) };
      return made(
        `segment ${name}: new constraints`,
        await admin("PUT", `/api/admin/segments/${state.segments.get(name)}`, body),
      );
    }
    case "variants": {
      const body = random.chance(0.2) ? [] : variants(random, { overrides: true, requireComplete: false });
      return made(`${flag.name}: variants in ${environment}`, await admin("PUT", `${at}/variants`, body));
    }
    case "archive": {
      const answer = await admin("DELETE", base);
      if (answer.status < 300) {
        state.flags.splice(state.flags.indexOf(flag), 1);
        state.archived.push(flag);
      }
      return made(`${flag.name}: archive`, answer);
    }
    case "revive": {
      const gone = state.archived.length > 0 ? random.pick(state.archived) : undefined;
      if (!gone) return makeChange(random, admin, state);
      const answer = await admin("POST", `/api/admin/archive/revive/${gone.name}`);
      if (answer.status < 300) {
        state.archived.splice(state.archived.indexOf(gone), 1);
        state.flags.push(gone);
      }
      return made(`${gone.name}: revive`, answer);
    }
    case "project environment": {
      const back = state.removed.length > 0 && random.chance(0.6) ? random.pick(state.removed) : undefined;
      if (back) {
        const answer = await admin("POST", `/api/admin/projects/${back.project}/environments`, {
          environment: back.environment,
        });
        if (answer.status < 300) state.removed.splice(state.removed.indexOf(back), 1);
        return made(`${back.project}: ${back.environment} given back`, answer);
      }
      // The project's flags leave that environment's documents (and come back with it).
      if (environmentsOf(state, flag.project).length < 2) return makeChange(random, admin, state);
      const answer = await admin("DELETE", `/api/admin/projects/${flag.project}/environments/${environment}`);
      if (answer.status < 300) state.removed.push({ project: flag.project, environment });
      return made(`${flag.project}: ${environment} taken away`, answer);
    }
    case "token": {
      // Every token change makes each instance check its streams' tokens again.
      if (state.tokens.length > 0 && random.chance(0.5)) {
        const id = state.tokens.splice(random.int(0, state.tokens.length - 1), 1)[0]!;
        return made(`token ${id}: delete`, await admin("DELETE", `/api/admin/api-tokens/${id}`));
      }
      const answer = await admin("POST", "/api/admin/api-tokens", {
        tokenName: `changes-${state.tokens.length}`,
        type: "client",
        environment,
        projects: random.chance(0.5) ? ["*"] : [flag.project],
      });
      if (answer.status < 300) state.tokens.push((answer.body as { id: number }).id);
      return made(`token for ${flag.project} in ${environment}`, answer);
    }
  }
}
