// What the `signalbox` command's subcommands share: exit codes, failures, stderr lines and
// calls to a service.
import http from "node:http";
import https from "node:https";

/** Exit codes: what a script calling the command can tell apart. */
export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

/** A failure the command reports in one message, with its exit code. */
export class Failure extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

export const say = (line: string) => process.stderr.write(`signalbox: ${line}\n`);

/** A service's base URL from `--url`-like options: `…/api`, as SDKs are given it, is taken too. */
export function serviceUrl(raw: string | undefined, option: string): URL {
  let url: URL;
  try {
    url = new URL(raw ?? "");
  } catch {
    throw new Failure(`${option} is not a URL: ${raw ?? "(none)"}`, EXIT.usage);
  }
  url.pathname = url.pathname.replace(/\/api\/?$/, "").replace(/\/?$/, "/");
  return url;
}

/** Bodies at least this large show their progress on stderr as they go. */
const PROGRESS_FROM = 64 * 1024;

export const kilobytes = (bytes: number) => `${Math.round(bytes / 1024)} kB`;

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

export interface Answer {
  status: number;
  body: unknown;
}

/**
 * One API call, a POST of `body` or, without one, a GET; the body goes out, and the answer
 * comes in, in chunks that report progress.
 */
export function call(url: URL, token: string, path: string, body?: unknown): Promise<Answer> {
  const payload = Buffer.from(body === undefined ? "" : JSON.stringify(body));
  const target = new URL(path, url.href.endsWith("/") ? url : `${url.href}/`);
  const client = target.protocol === "https:" ? https : http;
  const sent = progress("sending", payload.length);
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: body === undefined ? "GET" : "POST",
        headers: {
          authorization: token,
          accept: "application/json",
          ...(body === undefined
            ? {}
            : { "content-type": "application/json", "content-length": payload.length }),
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
export function refusal(answer: Answer, what: string): Failure {
  const body = answer.body as { message?: string; details?: { message: string }[] } | undefined;
  const message = body?.message ?? (typeof answer.body === "string" ? answer.body : "");
  // A refusal with one reason repeats its message as its only detail (the reference's shape):
  // shown once.
  const details = (body?.details ?? [])
    .filter((detail) => detail.message !== message)
    .map((detail) => `\n  - ${detail.message}`)
    .join("");
  // A service whose limit is below --max-body: smaller requests would go through.
  const hint = answer.status === 413 ? "\n  give the service's limit as --max-body" : "";
  return new Failure(`${what} refused (${answer.status}): ${message}${details}${hint}`, EXIT.refused);
}
