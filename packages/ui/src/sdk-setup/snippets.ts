/** What an application needs to read its flags: the packages to install and the code to start with. */
export interface Snippet {
  install: string;
  code: string;
}

/** Stand-ins for a secret the panel does not have: secrets are shown once, when made. */
export const PLACEHOLDERS = {
  client: "<your backend token>",
  frontend: "<your frontend token>",
} as const;

const quoted = (value: string) => JSON.stringify(value);

/** The official Node.js SDK, which fetches the flags and evaluates them in the process. */
export function nodeSnippet(origin: string, token: string): Snippet {
  return {
    install: "npm install unleash-client",
    code: `import { initialize } from "unleash-client";

const unleash = initialize({
  url: ${quoted(`${origin}/api`)},
  appName: "my-app",
  customHeaders: { Authorization: ${quoted(token)} },
});

unleash.on("synchronized", () => {
  console.log(unleash.isEnabled("my-flag"));
});
`,
  };
}

/** The browser SDK, asking the service's frontend API for the flags of its context. */
export function browserSnippet(origin: string, token: string): Snippet {
  return {
    install: "npm install unleash-proxy-client",
    code: `import { UnleashClient } from "unleash-proxy-client";

const unleash = new UnleashClient({
  url: ${quoted(`${origin}/api/frontend`)},
  clientKey: ${quoted(token)},
  appName: "my-app",
});

unleash.on("ready", () => {
  console.log(unleash.isEnabled("my-flag"));
});
unleash.start();
`,
  };
}

/**
 * OpenFeature's web SDK with its generic OFREP provider: OpenFeature's own protocol, which
 * the service speaks with a frontend token; no Unleash SDK underneath.
 */
export function openFeatureWebSnippet(origin: string, token: string): Snippet {
  return {
    install: "npm install @openfeature/web-sdk @openfeature/ofrep-web-provider",
    code: `import { OpenFeature } from "@openfeature/web-sdk";
import { OFREPWebProvider } from "@openfeature/ofrep-web-provider";

await OpenFeature.setContext({ targetingKey: "user-123" });
await OpenFeature.setProviderAndWait(
  new OFREPWebProvider({
    baseUrl: ${quoted(origin)},
    headers: [["Authorization", ${quoted(token)}]],
  }),
);

const flags = OpenFeature.getClient();
console.log(flags.getBooleanValue("my-flag", false));
`,
  };
}

/**
 * OpenFeature's server SDK with its generic OFREP provider, evaluating each flag on the
 * service for the context given; other languages' OFREP providers take the same address.
 */
export function openFeatureServerSnippet(origin: string, token: string): Snippet {
  return {
    install: "npm install @openfeature/server-sdk @openfeature/ofrep-provider @openfeature/ofrep-core@0.1.4",
    code: `import { OpenFeature } from "@openfeature/server-sdk";
import { OFREPProvider } from "@openfeature/ofrep-provider";

await OpenFeature.setProviderAndWait(
  new OFREPProvider({
    baseUrl: ${quoted(origin)},
    headers: [["Authorization", ${quoted(token)}]],
  }),
);

const flags = OpenFeature.getClient();
console.log(await flags.getBooleanValue("my-flag", false, { targetingKey: "user-123" }));
`,
  };
}
