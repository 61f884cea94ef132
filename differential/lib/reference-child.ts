// Child process: unleash-server, the reference, on the database in DATABASE_URL.
//
// Its open-source edition has no API to create projects or environments (those routes
// are in its paid edition), so the parent asks this process, over IPC, to create them
// through the reference's own services. Everything else goes through its HTTP API.
import type { AddressInfo } from "node:net";
import { loadReference } from "../../reference/load.js";

interface Instance {
  server: { address(): AddressInfo | string | null };
  stores: { environmentStore: { create(environment: Record<string, unknown>): Promise<unknown> } };
  services: {
    projectService: {
      createProject(project: Record<string, unknown>, user: unknown, audit: unknown): Promise<unknown>;
    };
  };
}

interface UnleashServer {
  start(options: Record<string, unknown>): Promise<Instance>;
  SYSTEM_USER: unknown;
  SYSTEM_USER_AUDIT: unknown;
}

export type ReferenceRequest =
  | { id: number; op: "createEnvironment"; body: Record<string, unknown> }
  | { id: number; op: "createProject"; body: Record<string, unknown> };

const unleash = await loadReference<UnleashServer>("unleash-server");
const instance = await unleash.start({
  server: { port: 0 },
  logLevel: "error",
  versionCheck: { enable: false },
  // Any UI environment but `pro` makes the open-source edition ignore every project but
  // `default` and every environment but default/development/production.
  ui: { environment: "pro" },
});
const address = instance.server.address();
const port = typeof address === "object" && address ? address.port : 0;
process.send?.({ url: `http://127.0.0.1:${port}` });

process.on("message", async (message: ReferenceRequest) => {
  try {
    let result: unknown;
    if (message.op === "createEnvironment") {
      result = await instance.stores.environmentStore.create(message.body);
    } else {
      result = await instance.services.projectService.createProject(
        { ...message.body },
        unleash.SYSTEM_USER,
        unleash.SYSTEM_USER_AUDIT,
      );
    }
    process.send?.({ id: message.id, ok: true, result });
  } catch (error) {
    process.send?.({ id: message.id, ok: false, error: String(error) });
  }
});
// Its stop() logs an error about closing its server twice; the parent drops the database
// with its connections anyway.
process.on("SIGTERM", () => process.exit(0));
