#!/usr/bin/env node
// `signalbox`: export, validate and import flags on a running Signalbox (or Unleash) service
// over its admin API, with a personal access token or a service account's token; and compare
// what two services serve their SDKs.
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { call, EXIT, Failure, refusal, say, serviceUrl } from "./cli-common.js";
import { compare } from "./compare-command.js";
import { type Exported, placeStrategies, unplaced } from "./export-order.js";
import { ChunkTooLarge, type ImportBody, importChunks } from "./import-chunks.js";

/** The service's body limit unless its BODY_LIMIT raises it: 100 kB, as the spec has it. */
const DEFAULT_MAX_BODY = 100 * 1024;

const USAGE = `Usage:
  signalbox export   --project P --environment E [--features a,b | --tag VALUE] [--output FILE]
  signalbox validate --file FILE [--project P] [--environment E]
  signalbox import   --file FILE [--project P] [--environment E]
  signalbox compare  --from URL --from-token T --to URL --to-token T [--contexts N] [--seed S]
                     (signalbox compare --help says more)

  --url URL      the service (or SIGNALBOX_URL; default http://localhost:4242)
  --token TOKEN  a personal access token or a service account's token (or SIGNALBOX_TOKEN);
                 imports refuse admin tokens
  --output FILE  where export writes the file (default: standard output); strategies the
                 service's export leaves without a position (Unleash's do) get theirs from
                 its admin API
  --file FILE    an exported file, or an import body {project, environment, data}; --project
                 and --environment say where it goes and win over the body's
  --max-body N   the largest request the service takes, in bytes: its BODY_LIMIT
                 (default ${DEFAULT_MAX_BODY}, the service's default)

import validates first and imports nothing when the service reports errors or missing
permissions. A file larger than --max-body is sent in several requests, each flag whole
with its strategies, settings, tags and dependencies, the flags others depend on first;
each request is imported on its own, so a refusal part way leaves the earlier ones
imported (importing the file again, once fixed, overwrites them). Exit codes: 0 done,
1 refused (validation errors, missing permissions, or the service said no), 2 wrong usage
or unreadable file, 3 service unreachable.
`;

interface Finding {
  message: string;
  affectedItems: string[];
}
interface Report {
  errors: Finding[];
  warnings: Finding[];
  permissions: Finding[];
}

/**
 * A parent missing now may come in an earlier request of this import, which the service
 * cannot know while nothing is imported yet: such parents are not missing.
 */
const MISSING_PARENTS = "We detected the following dependencies that need to be created first:";
function sentBefore(report: Report, earlier: ReadonlySet<string>): Report {
  const errors = report.errors.flatMap((finding) => {
    if (finding.message !== MISSING_PARENTS) return [finding];
    const affectedItems = finding.affectedItems.filter((item) => !earlier.has(item));
    return affectedItems.length > 0 ? [{ ...finding, affectedItems }] : [];
  });
  return { ...report, errors };
}

/** The reports of an import's requests as one: each finding once, with every item it names. */
function merged(reports: Report[]): Report {
  const merge = (findings: Finding[]) => {
    const items = new Map<string, Set<string>>();
    for (const finding of findings) {
      const set = items.get(finding.message) ?? new Set<string>();
      for (const item of finding.affectedItems) set.add(item);
      items.set(finding.message, set);
    }
    return [...items].map(([message, affected]) => ({ message, affectedItems: [...affected] }));
  };
  return {
    errors: merge(reports.flatMap((report) => report.errors)),
    warnings: merge(reports.flatMap((report) => report.warnings)),
    permissions: merge(reports.flatMap((report) => report.permissions)),
  };
}

function show(kind: string, findings: Finding[]): void {
  for (const finding of findings) {
    say(`${kind}: ${finding.message}${finding.affectedItems.map((item) => `\n  - ${item}`).join("")}`);
  }
}

interface ExportFile {
  features: unknown[];
  featureStrategies: unknown[];
  featureTags?: unknown[];
  contextFields?: unknown[];
  segments?: unknown[];
  dependencies?: unknown[];
}

const counts = (data: ExportFile) =>
  `${data.features.length} flags, ${data.featureStrategies.length} strategies, ${data.featureTags?.length ?? 0} tags, ${data.dependencies?.length ?? 0} flags with dependencies`;

async function readBody(
  file: string,
  project: string | undefined,
  environment: string | undefined,
): Promise<{ project: string; environment: string; data: ExportFile }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new Failure(`cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
  }
  const body = parsed as { project?: string; environment?: string; data?: ExportFile };
  const data = (body.data ?? parsed) as ExportFile;
  if (!Array.isArray(data?.features) || !Array.isArray(data?.featureStrategies)) {
    throw new Failure(
      `${file} is not an exported file: it has no features and featureStrategies lists`,
      EXIT.usage,
    );
  }
  const where = { project: project ?? body.project, environment: environment ?? body.environment };
  if (!where.project || !where.environment) {
    throw new Failure("say where to import: --project and --environment", EXIT.usage);
  }
  return { project: where.project, environment: where.environment, data };
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "compare") return compare(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: "string" },
      token: { type: "string" },
      project: { type: "string" },
      environment: { type: "string" },
      features: { type: "string" },
      tag: { type: "string" },
      output: { type: "string", short: "o" },
      file: { type: "string", short: "f" },
      "max-body": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help) {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (!command || !["export", "validate", "import"].includes(command) || rest.length > 0) {
    throw new Failure(`expected export, validate, import or compare\n${USAGE}`, EXIT.usage);
  }
  const token = values.token ?? process.env.SIGNALBOX_TOKEN;
  if (!token) throw new Failure("no token: give --token or set SIGNALBOX_TOKEN", EXIT.usage);
  const url = serviceUrl(values.url || process.env.SIGNALBOX_URL || "http://localhost:4242", "--url");

  if (command === "export") {
    if (!values.environment) throw new Failure("export needs --environment", EXIT.usage);
    const query = {
      environment: values.environment,
      ...(values.project ? { project: values.project } : {}),
      ...(values.features ? { features: values.features.split(",").filter(Boolean) } : {}),
      ...(values.tag ? { tag: values.tag } : {}),
    };
    const answer = await call(url, token, "api/admin/features-batch/export", query);
    if (answer.status !== 200) throw refusal(answer, "export");
    const flags = unplaced(answer.body as Exported).length;
    if (flags > 0) {
      say(`the export leaves out where strategies stand: reading it for ${flags} flags from the admin API`);
      await placeStrategies(url, token, answer.body as Exported, values.environment, values.project);
    }
    const text = `${JSON.stringify(answer.body, null, 2)}\n`;
    if (values.output) await writeFile(values.output, text);
    else process.stdout.write(text);
    say(
      `exported ${counts(answer.body as ExportFile)} from environment ${values.environment}${values.output ? ` to ${values.output}` : ""}`,
    );
    return EXIT.ok;
  }

  if (!values.file) throw new Failure(`${command} needs --file`, EXIT.usage);
  const maxBody = Number(values["max-body"] ?? DEFAULT_MAX_BODY);
  if (!Number.isInteger(maxBody) || maxBody < 1024) {
    throw new Failure(`--max-body is a number of bytes, at least 1024: ${values["max-body"]}`, EXIT.usage);
  }
  const body = await readBody(values.file, values.project, values.environment);
  let chunks: ReturnType<typeof importChunks>;
  try {
    chunks = importChunks(body as unknown as ImportBody, maxBody);
  } catch (error) {
    if (!(error instanceof ChunkTooLarge)) throw error;
    throw new Failure(
      `${values.file} cannot be sent in requests of at most ${maxBody} bytes: ${error.message}; raise the service's BODY_LIMIT and give it as --max-body`,
      EXIT.usage,
    );
  }
  const requests = chunks.length > 1 ? ` in ${chunks.length} requests` : "";
  const reports: Report[] = [];
  for (const [index, chunk] of chunks.entries()) {
    const checked = await call(url, token, "api/admin/features-batch/validate", chunk.body);
    if (checked.status !== 200) throw refusal(checked, "validation");
    const earlier = new Set(chunks.slice(0, index).flatMap((sent) => sent.flags));
    reports.push(sentBefore(checked.body as Report, earlier));
  }
  const report = merged(reports);
  show("error", report.errors);
  show("missing permission", report.permissions);
  show("warning", report.warnings);
  const place = `project ${body.project}, environment ${body.environment}`;
  if (report.errors.length > 0 || report.permissions.length > 0) {
    say(
      `${values.file} cannot be imported into ${place}: ${report.errors.length} errors, ${report.permissions.length > 0 ? "missing permissions" : "no missing permissions"}; nothing was imported`,
    );
    return EXIT.refused;
  }
  if (command === "validate") {
    say(
      `${values.file} can be imported into ${place}: ${counts(body.data)}; ${report.warnings.length} warnings${requests && `; checked${requests}`}`,
    );
    return EXIT.ok;
  }
  for (const [index, chunk] of chunks.entries()) {
    const imported = await call(url, token, "api/admin/features-batch/import", chunk.body);
    if (imported.status === 200) continue;
    const refused = refusal(imported, `import${requests ? ` request ${index + 1} of ${chunks.length}` : ""}`);
    if (index === 0) throw refused;
    const done = chunks.slice(0, index).flatMap((sent) => sent.flags).length;
    throw new Failure(
      `${refused.message}\nthe ${index} requests before it were imported (${done} flags): import the file again once this is fixed`,
      refused.code,
    );
  }
  say(`imported ${counts(body.data)} into ${place}${requests}; ${report.warnings.length} warnings`);
  return EXIT.ok;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof Failure) {
    say(error.message);
    process.exitCode = error.code;
  } else if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
    say(`${(error as Error).message}\n${USAGE}`);
    process.exitCode = EXIT.usage;
  } else {
    say(`failed: ${(error as Error).stack ?? error}`);
    process.exitCode = EXIT.refused;
  }
}
