import * as oidc from "openid-client";

/** What talking to a provider takes from the settings. */
export interface ProviderSettings {
  discoverUrl: string;
  clientId: string;
  secret: string;
  idTokenSigningAlgorithm: string;
}

/** Why a provider cannot be used, in words an admin can act on. */
export class ProviderProblem extends Error {}

// Long enough for a slow provider, short enough that a browser is not left hanging.
const TIMEOUT_SECONDS = 10;

/**
 * The provider's metadata and this service's client at it, checked to offer what signing in
 * needs. The discovery URL may be the issuer, whose metadata must then name that same issuer,
 * or the discovery document itself, as the reference's setting is usually filled in.
 */
export async function connect(settings: ProviderSettings): Promise<oidc.Configuration> {
  const url = new URL(settings.discoverUrl);
  // Plain HTTP is for providers on a private network or a developer's machine.
  const execute = url.protocol === "http:" ? [oidc.allowInsecureRequests] : [];
  let discovered: oidc.Configuration;
  try {
    discovered = await oidc.discovery(url, settings.clientId, undefined, undefined, {
      execute,
      timeout: TIMEOUT_SECONDS,
    });
  } catch (error) {
    throw new ProviderProblem(`could not load the discovery document from ${url.href}: ${describe(error)}`);
  }
  const server = discovered.serverMetadata();
  if (server.response_types_supported && !server.response_types_supported.includes("code")) {
    throw new ProviderProblem("the provider does not offer the authorization code flow (response type code)");
  }
  const algorithms = server.id_token_signing_alg_values_supported;
  if (algorithms && !algorithms.includes(settings.idTokenSigningAlgorithm)) {
    throw new ProviderProblem(
      `the provider does not sign ID tokens with ${settings.idTokenSigningAlgorithm}; it offers ${algorithms.join(", ")}`,
    );
  }
  const config = new oidc.Configuration(
    server,
    settings.clientId,
    { client_secret: settings.secret, id_token_signed_response_alg: settings.idTokenSigningAlgorithm },
    clientAuthentication(server.token_endpoint_auth_methods_supported, settings.secret),
  );
  for (const step of execute) step(config);
  config.timeout = TIMEOUT_SECONDS;
  return config;
}

// Basic authentication is the default OpenID Connect gives a provider that lists no methods.
function clientAuthentication(supported: string[] | undefined, secret: string): oidc.ClientAuth {
  if (!supported || supported.includes("client_secret_basic")) return oidc.ClientSecretBasic(secret);
  if (supported.includes("client_secret_post")) return oidc.ClientSecretPost(secret);
  throw new ProviderProblem(
    `the provider accepts neither client_secret_basic nor client_secret_post at its token endpoint (it offers ${supported.join(", ")})`,
  );
}

/** Whether the provider could not be reached at all, rather than answered with a refusal. */
export function unreachable(error: unknown): boolean {
  if (error instanceof TypeError && error.message === "fetch failed") return true;
  return (
    error instanceof oidc.ClientError && (error.code === "OAUTH_TIMEOUT" || error.code === "OAUTH_ABORT")
  );
}

/** An error from the provider or from checking its answer, with the detail that explains it. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof oidc.AuthorizationResponseError || error instanceof oidc.ResponseBodyError) {
    return error.error_description ? `${error.error}: ${error.error_description}` : error.error;
  }
  const cause = error.cause;
  if (cause instanceof Response) return `${error.message} (HTTP ${cause.status})`;
  if (cause instanceof Error) return `${error.message} (${cause.message})`;
  return error.message;
}
