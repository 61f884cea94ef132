export { createProxy, type ListenOptions, type SignalboxProxy } from "./app.js";
export {
  ConfigError,
  type ContextEnricher,
  type CorsOptions,
  type Environment,
  type ProxyConfig,
  type ProxyOptions,
  resolveConfig,
  type TagFilter,
} from "./config.js";
export type { Logger, LogLevel } from "./logger.js";
export { FileStorageProvider, type StorageProvider } from "./storage.js";
