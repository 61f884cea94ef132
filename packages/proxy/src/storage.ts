import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
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

/** One JSON file per key in a folder; written to a temporary name first so a crash never leaves half a file. */
export class FileStorageProvider implements StorageProvider {
  constructor(private readonly directory: string) {}

  async set(key: string, data: ClientFeatures): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const file = this.fileFor(key);
    await writeFile(`${file}.tmp`, JSON.stringify(data));
    await rename(`${file}.tmp`, file);
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
