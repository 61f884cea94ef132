import { type Migration, type MigrationProvider, Migrator } from "kysely";
import type { Db } from "./connection.js";
import * as initial from "./migrations/0001_initial.js";
import * as featureCreatedBy from "./migrations/0002_feature_created_by.js";
import * as revision from "./migrations/0003_revision.js";
import * as variantsSorted from "./migrations/0004_variants_sorted.js";
import * as tokenDisplay from "./migrations/0005_token_display.js";
import * as outboxCursors from "./migrations/0006_outbox_cursors.js";
import * as people from "./migrations/0007_people.js";
import * as instanceSdkType from "./migrations/0008_instance_sdk_type.js";
import * as changeRequests from "./migrations/0009_change_requests.js";
import * as addons from "./migrations/0010_addons.js";
import * as addonCursors from "./migrations/0011_addon_cursors.js";
import * as changeReferences from "./migrations/0012_change_references.js";
import * as featureCreators from "./migrations/0013_feature_creators.js";
import * as eventNames from "./migrations/0014_event_names.js";
import * as scaleIndexes from "./migrations/0015_scale_indexes.js";
import * as impactMetrics from "./migrations/0016_impact_metrics.js";
import * as releasePlans from "./migrations/0017_release_plans.js";

// Migrations are compiled in, not read from a folder, so a bundled or built server
// always carries exactly the migrations its code expects.
const migrations: Record<string, Migration> = {
  "0001_initial": initial,
  "0002_feature_created_by": featureCreatedBy,
  "0003_revision": revision,
  "0004_variants_sorted": variantsSorted,
  "0005_token_display": tokenDisplay,
  "0006_outbox_cursors": outboxCursors,
  "0007_people": people,
  "0008_instance_sdk_type": instanceSdkType,
  "0009_change_requests": changeRequests,
  "0010_addons": addons,
  "0011_addon_cursors": addonCursors,
  "0012_change_references": changeReferences,
  "0013_feature_creators": featureCreators,
  "0014_event_names": eventNames,
  "0015_scale_indexes": scaleIndexes,
  "0016_impact_metrics": impactMetrics,
  "0017_release_plans": releasePlans,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * Brings the schema up to date. Kysely's migrator takes a lock row first, so two
 * instances starting at once apply each migration exactly once; a second run is a no-op.
 */
export async function migrate(db: Db): Promise<void> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === "Error")?.migrationName;
    throw new Error(`migration ${failed ?? "(unknown)"} failed: ${String(error)}`, { cause: error });
  }
}
