import { notFound } from "@signalbox/protocol";
import type { Actor } from "../../../access/actor.js";
import type { Db } from "../../../db/connection.js";
import type { EventService } from "../../events/service.js";
import type { FlagService } from "../flags/service.js";
import type {} from "./events.js";
import type { Completion, CurrentStage, StageEntry } from "./schemas.js";
import { lifecycleStore } from "./store.js";

/** The stages in the order they follow each other: the later wins when two are entered at once. */
const STAGES = ["initial", "pre-live", "live", "completed", "archived"];

/**
 * Where each flag is in its life (`feature_lifecycles`): flags record creation and
 * archiving, metrics record use, and people mark a flag completed.
 */
export class LifecycleService {
  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly flags: Pick<FlagService, "find" | "require">,
  ) {}

  /** Endpoint 15: archived flags keep their stages; an unknown project or flag is 404, as the spec says. */
  async stages(_actor: Actor, projectId: string, name: string): Promise<StageEntry[]> {
    const flag = await this.flags.find(this.db, name);
    if (!flag || flag.project !== projectId) {
      throw notFound(`Could not find feature flag ${name} in project ${projectId}`);
    }
    return (await lifecycleStore.ofFlags(this.db, [name])).map((row) => ({
      stage: row.stage,
      ...(row.status ? { status: row.status } : {}),
      enteredStageAt: row.created_at.toISOString(),
    }));
  }

  async complete(actor: Actor, projectId: string, name: string, completion: Completion): Promise<void> {
    const { status, statusValue } = completion;
    await this.events.change(actor, async (change) => {
      const flag = await this.flags.require(change.db, projectId, name);
      await lifecycleStore.enter(change.db, [name], "completed", status, statusValue ?? null);
      change.record({
        type: "feature-completed",
        project: flag.project,
        featureName: name,
        data: { status, statusValue, kept: status === "kept" },
      });
    });
  }

  async uncomplete(actor: Actor, projectId: string, name: string): Promise<void> {
    await this.events.change(actor, async (change) => {
      const flag = await this.flags.require(change.db, projectId, name);
      await lifecycleStore.leave(change.db, name, "completed");
      change.record({ type: "feature-uncompleted", project: flag.project, featureName: name });
    });
  }

  /** The stage each of the flags is in: the latest entered, later stages winning ties. */
  async current(db: Db, names: string[]): Promise<Map<string, CurrentStage>> {
    type Row = { stage: string; created_at: Date };
    const order = (a: Row, b: Row) =>
      a.created_at.getTime() - b.created_at.getTime() || STAGES.indexOf(a.stage) - STAGES.indexOf(b.stage);
    const latest = new Map<string, Row>();
    for (const row of await lifecycleStore.ofFlags(db, names)) {
      const before = latest.get(row.feature);
      if (!before || order(row, before) >= 0) latest.set(row.feature, row);
    }
    return new Map(
      [...latest].map(([name, row]) => [
        name,
        { stage: row.stage, enteredStageAt: row.created_at.toISOString() },
      ]),
    );
  }

  async enter(db: Db, name: string, stage: string): Promise<void> {
    await this.enterAll(db, [name], stage);
  }

  async enterAll(db: Db, names: string[], stage: string): Promise<void> {
    if (names.length > 0) await lifecycleStore.enter(db, [...new Set(names)], stage, null, null);
  }

  /** A revived flag starts its life again, as the reference records it: its stages go, but `initial`. */
  async restart(db: Db, name: string): Promise<void> {
    await lifecycleStore.forget(db, name);
    await lifecycleStore.enter(db, [name], "initial", null, null);
  }

  /** Use moves flags on (pre-live, live) once; a completed flag stays completed. */
  reachedThroughUse(db: Db, names: string[], stages: string[]): Promise<void> {
    return lifecycleStore.enterOnce(db, names, stages);
  }
}
