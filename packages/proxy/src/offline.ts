import { readFile } from "node:fs/promises";
import { type CompileOptions, compile, type Snapshot } from "@signalbox/engine";
import type { KnownToken, TokenCheck, Validation } from "./edge/tokens.js";
import type { Logger } from "./logger.js";
import type { ConfigSource } from "./source.js";
import type { SyncObserver } from "./sync.js";

/** The environment offline tokens are filed under: they all read the one file. */
export const OFFLINE_ENVIRONMENT = "offline";

export interface OfflineSettings {
  file: string;
  /** Ms between reads of the file; 0 reads it once. */
  reloadMs: number;
  compileOptions: CompileOptions;
  logger: Logger;
  observer: SyncObserver;
}

/**
 * A configuration read from a features file (`{version, features, segments}`, as
 * `/api/client/features` answers, or a delta document), with no upstream at all: Unleash
 * Edge's offline mode. Read again every `reloadMs` when set; a file that cannot be read or
 * parsed leaves the last good configuration in service.
 */
export class OfflineSource implements ConfigSource {
  private current: Snapshot | undefined;
  private text: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private markReady!: () => void;
  readonly ready = new Promise<void>((resolve) => {
    this.markReady = resolve;
  });

  constructor(private readonly settings: OfflineSettings) {}

  get snapshot(): Snapshot | undefined {
    return this.current;
  }

  start(): void {
    void this.read();
    if (this.settings.reloadMs > 0) {
      this.timer = setInterval(() => void this.read(), this.settings.reloadMs);
      this.timer.unref();
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
  }

  private async read(): Promise<void> {
    const { file, compileOptions, logger, observer } = this.settings;
    try {
      const text = await readFile(file, "utf8");
      if (text === this.text) return;
      const document: unknown = JSON.parse(text);
      const shaped = typeof document === "object" && document !== null;
      if (
        !shaped ||
        !(Array.isArray((document as { features?: unknown }).features) || "events" in document)
      ) {
        throw new Error("it holds no features list");
      }
      this.current = compile(document as Parameters<typeof compile>[0], compileOptions);
      this.text = text;
      logger.info(`Serving ${this.current.size} flags from ${file}`);
      observer.updated();
      this.markReady();
    } catch (error) {
      logger.error(
        `Cannot read the offline features file ${file}: ${(error as Error).message}${this.current ? "; the last one read stays in service" : ""}`,
      );
    }
  }
}

/** The tokens offline mode accepts, as configured: each sees the whole file. */
export class OfflineTokens implements TokenCheck {
  private readonly known = new Map<string, KnownToken>();

  constructor(clientTokens: readonly string[], frontendTokens: readonly string[]) {
    for (const [kind, secrets] of [
      ["client", clientTokens],
      ["frontend", frontendTokens],
    ] as const) {
      for (const secret of secrets) {
        this.known.set(secret, { secret, kind, environment: OFFLINE_ENVIRONMENT, projects: ["*"] });
      }
    }
  }

  async validate(secret: string): Promise<Validation> {
    const token = this.known.get(secret);
    return token ? { outcome: "valid", token } : { outcome: "invalid" };
  }

  revalidate(secret: string): Promise<Validation> {
    return this.validate(secret);
  }
}
