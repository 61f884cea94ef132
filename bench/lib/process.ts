import { type ChildProcess, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** A server started in a child process, so its CPU and memory are its own. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

export async function startServer(script: string, env: Record<string, string>): Promise<ServerProcess> {
  const child = fork(script, [], {
    env: { ...process.env, ...env },
    execArgv: ["--conditions=signalbox-source", "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("message", (message) => resolve(String((message as { url: string }).url)));
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before listening`)));
  });
  return {
    child,
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

const statusMiB = (pid: number, field: "VmRSS" | "VmHWM") => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
};

/** Resident set size in MiB, from /proc. */
export const residentMiB = (pid: number): number => statusMiB(pid, "VmRSS");

/** The largest resident set size the process has had, in MiB, from /proc. */
export const peakMiB = (pid: number): number => statusMiB(pid, "VmHWM");

/** CPU seconds (user + system) a process has used so far, from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second here).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function waitFor(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A port nothing listens on now, for a child process to take. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}
