export { buildApp, createServices, type Services } from "./app.js";
export { type Config, ConfigError, defaultConfig, loadConfig } from "./config.js";
export { type Connection, connect, type Db } from "./db/connection.js";
export { migrate } from "./db/migrate.js";
export { openApiDocument } from "./openapi-document.js";
export { type RunningServer, startServer } from "./server.js";
