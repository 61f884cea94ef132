import { buildApp } from "./app.js";
import type { Config } from "./config.js";
import { connect } from "./db/connection.js";
import { migrate } from "./db/migrate.js";

export interface RunningServer {
  url: string;
  app: Awaited<ReturnType<typeof buildApp>>["app"];
  services: Awaited<ReturnType<typeof buildApp>>["services"];
  close(): Promise<void>;
}

/** Connects, migrates, creates the initial tokens and listens. */
export async function startServer(config: Config): Promise<RunningServer> {
  const connection = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(connection.db);
    const { app, services } = await buildApp(config, connection.db);
    await services.events.start(
      connection.subscribe ? { subscribe: connection.subscribe, pollMs: config.revisionPollMs } : undefined,
    );
    services.tokens.start(60_000);
    services.metrics.start(3_600_000);
    await services.tokens.ensure(config.initTokens.admin, "admin", "system");
    await services.tokens.ensure(config.initTokens.client, "client", "system");
    await services.tokens.ensure(config.initTokens.frontend, "frontend", "system");
    const url = await app.listen({ port: config.port, host: config.host });
    let closing: Promise<void> | undefined;
    return {
      url,
      app,
      services,
      // Stops accepting, lets in-flight requests finish, then closes the database.
      close: () => {
        closing ??= (async () => {
          await services.events.stop();
          services.metrics.stop();
          await app.close();
          await services.tokens.stop();
          await connection.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
