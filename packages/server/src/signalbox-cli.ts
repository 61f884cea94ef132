#!/usr/bin/env node
// `signalbox`: export, validate and import flags on a running Signalbox (or Unleash) service
// over its admin API, with a personal access token or a service account's token.
import { readFile, writeFile } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { parseArgs } from "node:util";

/** Exit codes: what a script calling this can tell apart. */
const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

/** Bodies at least this large show their progress on stderr as they go. */
const PROGRESS_FROM = 64 * 1024;

const USAGE = `Usage:
  signalbox export   --project P --environment E [--features a,b | --tag VALUE] [--output FILE]
  signalbox validate --file FILE [--project P] [--environment E]
  signalbox import   --file FILE [--project P] [--environment E]

  --url URL      the service (or SIGNALBOX_URL; default http://localhost:4242)
  --token TOKEN  a personal access token or a service account's token (or SIGNALBOX_TOKEN);
                 imports refuse admin tokens
  --output FILE  where export writes the file (default: standard output)
  --file FILE    an exported file, or an import body {project, environment, data}; --project
                 and --environment say where it goes and win over the body's

import validates first and imports nothing when the service reports errors or missing
permissions. Exit codes: 0 done, 1 refused (validation errors, missing permissions, or the
service said no), 2 wrong usage or unreadable file, 3 service unreachable.
`;

class Failure extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

const say = (line: string) => process.stderr.write(`signalbox: ${line}\n`);
const kilobytes = (bytes: number) => `${Math.round(bytes / 1024)} kB`;

/** Reports a transfer's progress: in place on a terminal, every quarter otherwise. */
function progress(verb: string, total: number): (done: number) => void {
  if (total < PROGRESS_FROM) return () => {};
  let shown = -1;
  return (done) => {
    const percent = Math.floor((done / total) * 100);
    const step = process.stderr.isTTY ? percent : Math.floor(percent / 25) * 25;
    if (step === shown) return;
    shown = step;
    const line = `${verb} ${step}% (${kilobytes(done)} of ${kilobytes(total)})`;
    if (process.stderr.isTTY) process.stderr.write(`\rsignalbox: ${line}${step === 100 ? "\n" : ""}`);
    else say(line);
  };
}

interface Answer {
  status: number;
  body: unknown;
}

/** One admin API call; the body goes out, and the answer comes in, in chunks that report progress. */
function call(url: URL, token: string, path: string, body: unknown): Promise<Answer> {
  const payload = Buffer.from(JSON.stringify(body));
  const target = new URL(path, url.href.endsWith("/") ? url : `${url.href}/`);
  const client = target.protocol === "https:" ? https : http;
  const sent = progress("sending", payload.length);
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: "POST",
        headers: {
          authorization: token,
          "content-type": "application/json",
          "content-length": payload.length,
          accept: "application/json",
        },
      },
      (response) => {
        const length = Number(response.headers["content-length"] ?? 0);
        const received = progress("receiving", length);
        const chunks: Buffer[] = [];
        let done = 0;
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          done += chunk.length;
          received(done);
        });
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // Not JSON (a proxy's error page, say): shown as text.
          }
          resolve({ status: response.statusCode ?? 0, body: parsed });
        });
        response.on("error", reject);
      },
    );
    request.on("error", (error) =>
      reject(new Failure(`cannot reach ${url.href}: ${error.message}`, EXIT.unreachable)),
    );
    const chunk = 64 * 1024;
    let offset = 0;
    sent(0);
    const write = () => {
      while (offset < payload.length) {
        const piece = payload.subarray(offset, offset + chunk);
        offset += piece.length;
        const more = request.write(piece, () => sent(offset));
        if (!more) return void request.once("drain", write);
      }
      request.end();
    };
    write();
  });
}

/** The service's refusal, as it worded it. */
function refusal(answer: Answer, what: string): Failure {
  const body = answer.body as { message?: string; details?: { message: string }[] } | undefined;
  const details = (body?.details ?? []).map((detail) => `\n  - ${detail.message}`).join("");
  const message = body?.message ?? (typeof answer.body === "string" ? answer.body : "");
  return new Failure(`${what} refused (${answer.status}): ${message}${details}`, EXIT.refused);
}

interface Finding {
  message: string;
  affectedItems: string[];
}
interface Report {
  errors: Finding[];
  warnings: Finding[];
  permissions: Finding[];
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
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help) {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (!command || !["export", "validate", "import"].includes(command) || rest.length > 0) {
    throw new Failure(`expected export, validate or import\n${USAGE}`, EXIT.usage);
  }
  const token = values.token ?? process.env.SIGNALBOX_TOKEN;
  if (!token) throw new Failure("no token: give --token or set SIGNALBOX_TOKEN", EXIT.usage);
  let url: URL;
  try {
    url = new URL(values.url ?? process.env.SIGNALBOX_URL ?? "http://localhost:4242");
  } catch {
    throw new Failure(`--url is not a URL: ${values.url ?? process.env.SIGNALBOX_URL}`, EXIT.usage);
  }

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
    const text = `${JSON.stringify(answer.body, null, 2)}\n`;
    if (values.output) await writeFile(values.output, text);
    else process.stdout.write(text);
    say(
      `exported ${counts(answer.body as ExportFile)} from environment ${values.environment}${values.output ? ` to ${values.output}` : ""}`,
    );
    return EXIT.ok;
  }

  if (!values.file) throw new Failure(`${command} needs --file`, EXIT.usage);
  const body = await readBody(values.file, values.project, values.environment);
  const checked = await call(url, token, "api/admin/features-batch/validate", body);
  if (checked.status !== 200) throw refusal(checked, "validation");
  const report = checked.body as Report;
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
      `${values.file} can be imported into ${place}: ${counts(body.data)}; ${report.warnings.length} warnings`,
    );
    return EXIT.ok;
  }
  const imported = await call(url, token, "api/admin/features-batch/import", body);
  if (imported.status !== 200) throw refusal(imported, "import");
  say(`imported ${counts(body.data)} into ${place}; ${report.warnings.length} warnings`);
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
