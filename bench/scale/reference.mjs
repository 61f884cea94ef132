// Child process: unleash-server 8.2 on the database in DATABASE_URL, configured from the
// environment. Plain JavaScript so that it runs without the TypeScript loader, as Signalbox
// runs from its build: neither server's memory carries a compiler.
//
// Its open-source edition has no API to create projects or environments (its paid edition
// has), so the parent asks this process over IPC to create them through its own services,
// as the differential test's reference child does.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(new URL("../../reference/package.json", import.meta.url));
const unleash = await import(pathToFileURL(require.resolve("unleash-server")).href);
const instance = await unleash.start({
  server: { port: 0 },
  logLevel: "error",
  versionCheck: { enable: false },
  // Any UI environment but `pro` makes the open-source edition ignore every project but
  // `default` and every environment but default/development/production.
  ui: { environment: "pro" },
});
const address = instance.server.address();
process.send?.({ url: `http://127.0.0.1:${address.port}` });

process.on("message", async (message) => {
  try {
    const result =
      message.op === "createEnvironment"
        ? await instance.stores.environmentStore.create(message.body)
        : await instance.services.projectService.createProject(
            { ...message.body },
            unleash.SYSTEM_USER,
            unleash.SYSTEM_USER_AUDIT,
          );
    process.send?.({ id: message.id, ok: true, result });
  } catch (error) {
    process.send?.({ id: message.id, ok: false, error: String(error) });
  }
});
// Its stop() logs an error about closing its server twice; the parent drops the database.
process.on("SIGTERM", () => process.exit(0));
