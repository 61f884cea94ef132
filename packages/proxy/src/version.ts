import { createRequire } from "node:module";

// src/ and dist/ both sit one level below package.json.
const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

export const PROXY_VERSION: string = version;
/** What the proxy announces upstream as its SDK, in the `name:version` form the SDKs use. */
export const SDK_NAME = `signalbox-proxy:${version}`;
/** The client specification the reference proxy announces; servers pick the document layout by it. */
export const SPEC_VERSION = "5.2.0";
