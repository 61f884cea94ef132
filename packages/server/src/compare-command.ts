// `signalbox compare`: what two services serve their SDKs, compared as the SDKs would see
// it. Both SDK documents are fetched (GET /api/client/features, each with its own client
// token) and compared flag by flag, and every flag is evaluated by Signalbox's engine on both
// for generated contexts, with the same random draws on each side.
import { parseArgs } from "node:util";
import { call, EXIT, Failure, refusal, serviceUrl } from "./cli-common.js";
import { type Comparison, compareDocuments, type Document, isDocument, randomSeed } from "./compare/index.js";

const DEFAULT_CONTEXTS = 1000;
/** Disagreements shown in full; the rest are counted. */
const SHOWN = 20;

export const COMPARE_USAGE = `Usage:
  signalbox compare --from URL --from-token TOKEN --to URL --to-token TOKEN
                    [--contexts N] [--seed S] [--json]

  --from URL, --to URL   the two services (http://host:4242, or …/api as SDKs are given it)
  --from-token, --to-token
                         a client (server-side SDK) token of each, for the same environment
  --contexts N           generated contexts every flag is evaluated for (default ${DEFAULT_CONTEXTS})
  --seed S               the seed of the contexts and of random draws (default random;
                         printed, so a run can be replayed)
  --json                 the comparison as JSON on stdout instead of lines

Both SDK documents are fetched as an SDK without a client specification header gets them
(segments inlined), normalised (flag order, constraint order, segment ids, a dependency
listed more than once), compared flag by flag, and evaluated by Signalbox's engine for the
contexts, generated from the values the documents' rules name. Exit codes: 0 the same,
1 a disagreement (or a service refused its token), 2 wrong usage, 3 a service unreachable.
`;

async function sdkDocument(side: "from" | "to", url: URL, token: string): Promise<Document> {
  const answer = await call(url, token, "api/client/features");
  if (answer.status !== 200) throw refusal(answer, `--${side} (${url.href})`);
  if (!isDocument(answer.body)) {
    throw new Failure(
      `--${side} (${url.href}) answered with something that is not an SDK document`,
      EXIT.refused,
    );
  }
  return answer.body;
}

function report(comparison: Comparison, seed: number): string {
  const lines: string[] = [];
  for (const disagreement of comparison.disagreements.slice(0, SHOWN)) {
    const answered =
      disagreement.contexts > 0
        ? `${disagreement.contexts} contexts answered differently`
        : "the same answers";
    lines.push(`${disagreement.flag}: ${answered}`);
    if (disagreement.paths.length > 0) lines.push(`  definitions differ at ${disagreement.paths.join(", ")}`);
    if (disagreement.example) {
      lines.push(`  context: ${JSON.stringify(disagreement.example.context)}`);
      lines.push(`  from:    ${JSON.stringify(disagreement.example.from)}`);
      lines.push(`  to:      ${JSON.stringify(disagreement.example.to)}`);
    }
  }
  const more = comparison.disagreements.length - SHOWN;
  if (more > 0) lines.push(`… and ${more} more flags (--json lists them all)`);
  for (const note of comparison.notes) lines.push(`note: ${note}`);
  lines.push(
    `compare: seed ${seed}, ${comparison.flags} flags, ${comparison.contexts} contexts, ${comparison.evaluations} evaluations, ${comparison.disagreements.length} flags disagree`,
  );
  return `${lines.join("\n")}\n`;
}

export async function compare(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new Failure(`${(error as Error).message}\n${COMPARE_USAGE}`, EXIT.usage);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(COMPARE_USAGE);
    return EXIT.ok;
  }
  if (positionals.length > 0)
    throw new Failure(`unexpected ${positionals.join(" ")}\n${COMPARE_USAGE}`, EXIT.usage);
  const missing = (["from", "from-token", "to", "to-token"] as const).filter((name) => !values[name]);
  if (missing.length > 0) {
    throw new Failure(
      `compare needs ${missing.map((name) => `--${name}`).join(", ")}\n${COMPARE_USAGE}`,
      EXIT.usage,
    );
  }
  const count = (name: "contexts" | "seed", fallback: number, min: number) => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < min) {
      throw new Failure(`--${name} is a whole number of at least ${min}: ${raw}`, EXIT.usage);
    }
    return value;
  };
  const contexts = count("contexts", DEFAULT_CONTEXTS, 1);
  const seed = count("seed", randomSeed(), 0);
  const from = await sdkDocument("from", serviceUrl(values.from, "--from"), values["from-token"]!);
  const to = await sdkDocument("to", serviceUrl(values.to, "--to"), values["to-token"]!);
  const comparison = compareDocuments(from, to, { contexts, seed });
  process.stdout.write(
    values.json ? `${JSON.stringify({ seed, ...comparison }, null, 2)}\n` : report(comparison, seed),
  );
  return comparison.disagreements.length === 0 ? EXIT.ok : EXIT.refused;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      from: { type: "string" },
      "from-token": { type: "string" },
      to: { type: "string" },
      "to-token": { type: "string" },
      contexts: { type: "string" },
      seed: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}
