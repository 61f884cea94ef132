// Fills a fresh service with the generated data: what an import cannot bring (environments,
// projects, context fields, segments) through the admin API, then every project's flags
// through the import API, environment by environment, so that the flags, their strategies,
// tags and switches, and the events they leave, come from the service's own write paths.
import {
  CONTEXT_FIELDS,
  CREATED_ENVIRONMENTS,
  ENVIRONMENTS,
  type FlagSpec,
  PROJECTS,
  segments,
  TEAMS,
} from "./data.js";
import { must } from "./http.js";
import { importBody, importChunks } from "./import-files.js";
import { IMPORT_LIMIT, type Service, TOKENS } from "./servers.js";

export interface Populated {
  seconds: number;
  requests: number;
}

export class OverBudget extends Error {}

export async function populate(
  service: Service,
  personalToken: string,
  flags: FlagSpec[],
  concurrency: number,
  deadline: number,
): Promise<Populated> {
  const started = performance.now();
  for (const environment of CREATED_ENVIRONMENTS) await service.createEnvironment(environment);
  for (const id of PROJECTS) {
    await service.createProject({ id, name: `Project ${id}`, environments: [...ENVIRONMENTS] });
  }
  for (const field of CONTEXT_FIELDS)
    await must(service.url, TOKENS.admin, "POST", "/api/admin/context", field);
  const segmentList = segments();
  for (const segment of segmentList) {
    await must(service.url, TOKENS.admin, "POST", "/api/admin/segments", {
      name: segment.name,
      constraints: segment.constraints,
    });
  }
  // The reference creates a tag value the first time a file uses it, and two imports that
  // create the same one at once fail (tags_pkey, or a deadlock): its values exist first there.
  // Signalbox keeps no list of tag values apart from the flags' tags.
  if (service.name === "reference") {
    for (const value of TEAMS) {
      await must(service.url, TOKENS.admin, "POST", "/api/admin/tags", { type: "simple", value });
    }
  }
  const byProject = importChunks(flags, segmentList, ENVIRONMENTS, IMPORT_LIMIT);
  const queue = [...byProject.values()];
  let requests = 0;
  // Projects in parallel; a project's files in order, as its later files update its flags.
  await Promise.all(
    Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let chunks = queue.shift(); chunks; chunks = queue.shift()) {
        for (const chunk of chunks) {
          if (Date.now() > deadline) throw new OverBudget(`${service.name}: import over its time budget`);
          await must(
            service.url,
            personalToken,
            "POST",
            "/api/admin/features-batch/import",
            importBody(chunk, segmentList),
          );
          requests++;
        }
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, requests };
}
