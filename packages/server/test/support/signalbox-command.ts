import { execFile } from "node:child_process";
import { built } from "./built.js";

// The built `signalbox` command run as a child process, as a person runs it.

const CLI = built("signalbox-cli.js");

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command; SIGNALBOX_URL and SIGNALBOX_TOKEN are unset unless `env` sets them. */
export function signalbox(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: { ...process.env, SIGNALBOX_URL: "", SIGNALBOX_TOKEN: "", ...env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
