// Sends every step of the plan to both services, the same call to each, and records where
// their answers part: one accepts what the other refuses, or both accept with another status.
import type { Ids, Plan, Step } from "./generate.js";
import type { RunningService, Side } from "./servers.js";

export interface Answer {
  status: number;
  body: unknown;
}

export interface AdminDifference {
  kind: "admin";
  label: string;
  flag: string | undefined;
  probe: boolean;
  method: string;
  path: string;
  body: unknown;
  reference: Answer;
  signalbox: Answer;
}

export interface Applied {
  differences: AdminDifference[];
  /** Flags whose configuration the two services no longer share: not compared further. */
  diverged: Set<string>;
  calls: number;
  ids: Record<Side, Ids>;
}

export async function request(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: token,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : "";
  } catch {
    // Not JSON: kept as text, which is what a report shows.
  }
  return { status: response.status, body: parsed };
}

/**
 * A request that changes nothing (an evaluation), sent again once when the connection it
 * went out on had been closed by the service: a pooled keep-alive connection outlives the
 * service's idle timeout while this process is busy evaluating with the SDKs.
 */
export async function evaluationRequest(...args: Parameters<typeof request>): Promise<Answer> {
  try {
    return await request(...args);
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw error;
    return request(...args);
  }
}

const ok = (status: number) => status >= 200 && status < 300;

async function send(service: RunningService, adminToken: string, step: Step, ids: Ids): Promise<Answer> {
  const body = step.body?.(ids);
  if (step.referenceIpc && service.side === "reference") {
    try {
      const result = await service.ipc(step.referenceIpc, body as Record<string, unknown>);
      return { status: 201, body: result };
    } catch (error) {
      return { status: 400, body: String(error) };
    }
  }
  return request(service.url, adminToken, step.method, step.path(ids), body);
}

async function inParallel<T>(items: T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await run(items[next++]!);
  });
  await Promise.all(workers);
}

export async function apply(
  plan: Plan,
  services: Record<Side, RunningService>,
  adminToken: string,
  concurrency = 6,
): Promise<Applied> {
  const ids: Record<Side, Ids> = {
    reference: { segments: new Map(), strategies: new Map(), tokens: new Map() },
    signalbox: { segments: new Map(), strategies: new Map(), tokens: new Map() },
  };
  const applied: Applied = { differences: [], diverged: new Set(), calls: 0, ids };
  const runStep = async (step: Step) => {
    const [reference, signalbox] = await Promise.all([
      send(services.reference, adminToken, step, ids.reference),
      send(services.signalbox, adminToken, step, ids.signalbox),
    ]);
    applied.calls++;
    if (ok(reference.status)) step.remember?.(ids.reference, reference.body);
    if (ok(signalbox.status)) step.remember?.(ids.signalbox, signalbox.body);
    const flag = step.flag;
    if (flag && step.related?.some((other) => applied.diverged.has(other))) {
      applied.diverged.add(flag);
      return;
    }
    if (reference.status === signalbox.status) return;
    // After the first disagreement on a flag, its later calls disagree by consequence.
    if (flag && applied.diverged.has(flag)) return;
    applied.differences.push({
      kind: "admin",
      label: step.label,
      flag,
      probe: step.probe === true,
      method: step.referenceIpc
        ? `${step.method} (reference: ${step.referenceIpc} through its services)`
        : step.method,
      path: step.path(ids.reference),
      body: step.body?.(ids.reference),
      reference,
      signalbox,
    });
    if (flag && ok(reference.status) !== ok(signalbox.status)) applied.diverged.add(flag);
  };
  await runPhases(plan.phases, concurrency, runStep);
  return applied;
}

/** Runs the phases in order: in each, a group's steps in order, the groups in parallel. */
async function runPhases(
  phases: Plan["phases"],
  concurrency: number,
  runStep: (step: Step) => Promise<void>,
): Promise<void> {
  for (const phase of phases) {
    const groups = new Map<string, Step[]>();
    for (const step of phase.steps) {
      const key = step.group ?? step.flag ?? `#${groups.size}`;
      const group = groups.get(key) ?? [];
      group.push(step);
      groups.set(key, group);
    }
    await inParallel([...groups.values()], phase.sequential ? 1 : concurrency, async (steps) => {
      for (const step of steps) await runStep(step);
    });
  }
}

/**
 * Sends the steps of the named phases (those `keep` leaves in) to one service alone, in the
 * same order and grouping as `apply`: how the migration test configures the reference it
 * migrates from. Returns the ids the service handed out and the steps it refused.
 */
export async function applyTo(
  plan: Plan,
  service: RunningService,
  adminToken: string,
  phases: readonly string[],
  keep: (step: Step) => boolean = () => true,
  concurrency = 6,
): Promise<{ ids: Ids; calls: number; refused: { label: string; answer: Answer }[] }> {
  const ids: Ids = { segments: new Map(), strategies: new Map(), tokens: new Map() };
  const result = { ids, calls: 0, refused: [] as { label: string; answer: Answer }[] };
  const chosen = plan.phases
    .filter((phase) => phases.includes(phase.name))
    .map((phase) => ({ ...phase, steps: phase.steps.filter(keep) }));
  await runPhases(chosen, concurrency, async (step) => {
    const answer = await send(service, adminToken, step, ids);
    result.calls++;
    if (ok(answer.status)) step.remember?.(ids, answer.body);
    else result.refused.push({ label: step.label, answer });
  });
  return result;
}
