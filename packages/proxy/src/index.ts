export { createProxy, type ListenOptions, type SignalboxProxy } from "./app.js";
export {
  ConfigError,
  type ContextEnricher,
  type CorsOptions,
  type Environment,
  type ProxyConfig,
  type ProxyOptions,
  type ResolveOptions,
  resolveConfig,
  type TagFilter,
} from "./config.js";
export type { LogFormat, Logger, LogLevel } from "./logger.js";
export { startStandalone } from "./standalone.js";
export { StartupError } from "./startup.js";
export { FileStorageProvider, type StorageProvider } from "./storage.js";
export { VARIABLES } from "./variables.js";
