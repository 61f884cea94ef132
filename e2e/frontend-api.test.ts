import type { RunningServer } from "@signalbox/server";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  type Admin,
  adminOf,
  browserSdkSeesTheService,
  createBrowserFlags,
  FRONTEND,
  startService,
} from "./support/service.js";

// The other browser path: the SDK pointed straight at the service's frontend API with a
// frontend token, as Unleash users do when they run no proxy.
describe("browser SDK → flag service frontend API", () => {
  let service: RunningServer;
  let admin: Admin;

  beforeAll(async () => {
    service = await startService();
    admin = adminOf(service);
    await createBrowserFlags(admin);
  });

  afterAll(async () => {
    await service?.close();
  });

  it("serves the browser SDK the flags, variants and payloads configured, and later changes", async () => {
    await browserSdkSeesTheService(admin, `${service.url}/api/frontend`, FRONTEND);
  });
});
