import type { Snapshot } from "@signalbox/engine";

/** Where a configuration comes from: the upstream (FeatureSync) or a file (OfflineSource). */
export interface ConfigSource {
  /** Undefined until the first configuration is in. */
  readonly snapshot: Snapshot | undefined;
  /** Settles once there is a configuration. */
  readonly ready: Promise<void>;
  start(): void;
  stop(): Promise<void>;
}
