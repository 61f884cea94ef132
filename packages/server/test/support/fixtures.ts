import { expect } from "vitest";
import { system } from "../../src/access/actor.js";
import type { ConstraintRow } from "../../src/db/schema.js";
import type { Reply, TestServer } from "./server.js";

export interface StrategySeed {
  id: string;
  environment: string;
  segments?: number[];
  constraints?: ConstraintRow[];
}

export interface FlagSeed {
  name: string;
  project?: string;
  archived?: boolean;
  stale?: boolean;
  lastSeenAt?: Date;
  environments?: string[];
  strategies?: StrategySeed[];
}

/**
 * Writes a flag straight to the tables, then records its creation as every write does:
 * these tests are about what other domains do with flags, not about the features API.
 */
export async function seedFlag(server: TestServer, flag: FlagSeed): Promise<void> {
  const project = flag.project ?? "default";
  await server.db.transaction().execute(async (db) => {
    await db
      .insertInto("features")
      .values({
        name: flag.name,
        project,
        description: null,
        stale: flag.stale ?? false,
        archived_at: flag.archived ? new Date() : null,
      })
      .execute();
    for (const environment of flag.environments ?? []) {
      await db
        .insertInto("feature_environments")
        .values({ feature_name: flag.name, environment, last_seen_at: flag.lastSeenAt ?? null })
        .execute();
    }
    for (const strategy of flag.strategies ?? []) {
      await db
        .insertInto("feature_strategies")
        .values({
          id: strategy.id,
          feature_name: flag.name,
          project_name: project,
          environment: strategy.environment,
          strategy_name: "default",
          segments: strategy.segments ?? [],
          constraints: JSON.stringify(strategy.constraints ?? []),
        })
        .execute();
    }
  });
  const view = await server.services.flagViews.get(system("test"), project, flag.name);
  await server.services.events.change(system("test"), async (change) =>
    change.record({ type: "feature-created", project, featureName: flag.name, data: view }),
  );
}

export async function removeStrategy(server: TestServer, id: string): Promise<void> {
  await server.db.deleteFrom("feature_strategies").where("id", "=", id).execute();
}

/** The newest event of a type, as the event search shows it. */
export async function latestEvent(server: TestServer, type: string) {
  const reply = await server.request("/api/admin/events/search", {
    method: "POST",
    body: { type, limit: 1 },
  });
  return reply.body.events[0];
}

/** A 400 ValidationError whose details name the field. */
export function expectInvalid(reply: Reply, path: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(400);
  expect(reply.body).toMatchObject({ name: "ValidationError", id: expect.any(String) });
  expect(reply.body).toMatchObject({ details: expect.arrayContaining([expect.objectContaining({ path })]) });
}
