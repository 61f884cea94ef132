import { ApiError } from "@signalbox/protocol";
import { system } from "./access/actor.js";
import { buildApp } from "./app.js";
import type { Config } from "./config.js";
import { connect } from "./db/connection.js";
import { type Origin, seedDataDir, templateFile } from "./db/embedded-template.js";
import { migrate } from "./db/migrate.js";
import {
  databaseProblem,
  ensurePortFree,
  lockDataDir,
  refuseForeignSchema,
  StartupError,
} from "./startup.js";

export interface RunningServer {
  url: string;
  app: Awaited<ReturnType<typeof buildApp>>["app"];
  services: Awaited<ReturnType<typeof buildApp>>["services"];
  close(): Promise<void>;
}

/**
 * Checks what can be checked before anything is created (the port, the data folder's lock,
 * the database and whose tables it holds), then migrates, creates the initial tokens and
 * listens. Failures an operator can fix are StartupErrors of one line.
 */
export async function startServer(config: Config): Promise<RunningServer> {
  await ensurePortFree(config.port, config.host);
  const embedded = !config.databaseUrl && !config.dataDir.startsWith("memory://");
  const unlock = embedded ? lockDataDir(config.dataDir) : () => {};
  let connection: Awaited<ReturnType<typeof connect>>;
  let origin: Origin | undefined;
  try {
    if (embedded) origin = await seedDataDir(config.dataDir);
    connection = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  } catch (error) {
    unlock();
    throw databaseProblem(error, config.databaseUrl);
  }
  try {
    await refuseForeignSchema(connection.db, config.databaseUrl).catch((error) => {
      throw error instanceof StartupError ? error : databaseProblem(error, config.databaseUrl);
    });
    await migrate(connection.db);
    const { app, services } = await buildApp(config, connection.db, { pool: connection.pool });
    if (origin === "template") {
      app.log.info(`created the embedded database in ${config.dataDir} from the prepared one`);
    } else if (origin === "initdb") {
      app.log.warn(
        `no prepared embedded database at ${templateFile()}: initialised a new one in ${config.dataDir}, ` +
          "which takes several hundred MB more memory on this first start",
      );
    }
    await services.events.start(
      connection.subscribe ? { subscribe: connection.subscribe, pollMs: config.revisionPollMs } : undefined,
    );
    services.tokens.start(60_000);
    services.personalTokens.start(60_000);
    services.users.start(60_000);
    services.sessions.start(3_600_000);
    services.metrics.start(3_600_000);
    services.impactMetrics.start(app.log, 3_600_000);
    services.staleness.start(3_600_000, app.log);
    for (const [variable, type] of [
      ["INIT_ADMIN_API_TOKENS", "admin"],
      ["INIT_CLIENT_API_TOKENS", "client"],
      ["INIT_FRONTEND_API_TOKENS", "frontend"],
    ] as const) {
      await services.tokens.ensure(system(), type, config.initTokens[type]).catch((error: Error) => {
        // An environment or project the token names may not exist: say which variable to fix.
        throw error instanceof ApiError ? new StartupError(`${variable}: ${error.message}`) : error;
      });
    }
    // The first admin, when there are no people yet; a password made here is shown this once.
    const admin = await services.users.bootstrapAdmin(config.defaultAdmin);
    services.events.outbox.start(app.log);
    await services.changeRequestScheduler.start(app.log);
    await services.releaseScheduler.start(app.log);
    await services.addons.start(app.log);
    const url = await app.listen({ port: config.port, host: config.host });
    if (admin) {
      const notice =
        `Created the first admin: log in at ${url} as ${admin.username} / ${admin.password} ` +
        "(shown only now; change it at POST /api/admin/user/change-password)";
      // A log line in the log's own format, so that JSON logs stay one object a line; with
      // logging off it is still printed, being the only way in.
      if (config.logLevel === "silent") process.stdout.write(`${notice}\n`);
      else app.log.warn(notice);
    }
    let closing: Promise<void> | undefined;
    return {
      url,
      app,
      services,
      // Stops accepting, lets in-flight requests finish, then closes the database.
      close: () => {
        closing ??= (async () => {
          await services.changeRequestScheduler.stop();
          await services.releaseScheduler.stop();
          await services.addons.stop();
          await services.events.outbox.stop();
          await services.events.stop();
          services.metrics.stop();
          services.impactMetrics.stop();
          await services.staleness.stop();
          await app.close();
          await services.tokens.stop();
          await services.personalTokens.stop();
          services.sessions.stop();
          await services.users.stop();
          await connection.close();
          unlock();
        })();
        return closing;
      },
    };
  } catch (error) {
    await connection.close().catch(() => {});
    unlock();
    throw error;
  }
}
