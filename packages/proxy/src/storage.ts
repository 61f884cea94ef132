import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ClientFeatures } from "@signalbox/engine";

/**
 * Keeps the last configuration received from the upstream service, so that a proxy
 * restarted while the upstream is unreachable can serve at once. Same shape as the
 * storage providers of the Unleash SDKs.
 */
export interface StorageProvider {
  set(key: string, data: ClientFeatures): Promise<void>;
  get(key: string): Promise<ClientFeatures | undefined>;
}

/**
 * One JSON file per key in a folder. Each write goes to a temporary file of its own, is
 * flushed to disk, then renamed over the old one: a crash, a power cut or a second process
 * writing the same key never leaves half a file to be read at the next start.
 */
export class FileStorageProvider implements StorageProvider {
  constructor(private readonly directory: string) {}

  async set(key: string, data: ClientFeatures): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const file = this.fileFor(key);
    const temporary = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
    const handle = await open(temporary, "w", 0o600);
    try {
      await handle.writeFile(JSON.stringify(data));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<ClientFeatures | undefined> {
    try {
      return JSON.parse(await readFile(this.fileFor(key), "utf8")) as ClientFeatures;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  private fileFor(key: string): string {
    return join(this.directory, `signalbox-proxy-backup-${encodeURIComponent(key)}.json`);
  }
}

/**
 * Why files cannot be made in `dir`, or undefined when they can. Nothing is created: the
 * nearest folder that exists must let this process write into it.
 */
export async function whyUnwritable(dir: string): Promise<string | undefined> {
  for (let path = dir; ; path = dirname(path)) {
    try {
      if (!(await stat(path)).isDirectory()) return `${path} is not a folder`;
      await access(path, constants.W_OK | constants.X_OK);
      return undefined;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" || dirname(path) === path) return code ?? (error as Error).message;
    }
  }
}
