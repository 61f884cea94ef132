// A real OpenID provider (panva's oidc-provider) on a random loopback port, for the single
// sign-on tests: run as a child process, it sends its issuer URL to its parent once it listens.
// Its one client and its accounts come from the environment:
//   OIDC_CLIENT  JSON { client_id, client_secret, redirect_uris }
//   OIDC_ACCOUNTS  JSON { [accountId]: { email?, email_verified?, name? } }
// Plain JavaScript, since oidc-provider ships no types; the test server never loads it.
import { once } from "node:events";
import { createServer } from "node:http";
import Provider from "oidc-provider";

const client = JSON.parse(process.env.OIDC_CLIENT ?? "{}");
const accounts = JSON.parse(process.env.OIDC_ACCOUNTS ?? "{}");

const server = createServer();
server.listen(0, "127.0.0.1");
await once(server, "listening");
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      ...client,
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
  ],
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
  findAccount: (_ctx, id) => accounts[id] && { accountId: id, claims: () => ({ sub: id, ...accounts[id] }) },
  // Logging in is the only interaction, answered below without a form.
  features: { devInteractions: { enabled: false } },
  // The client is first party: consent is implied, as an identity provider configured for it would.
  loadExistingGrant: async (ctx) => {
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope([...ctx.oidc.requestParamOIDCScopes].join(" "));
    await grant.save();
    return grant;
  },
  cookies: { keys: ["oidc-provider-test-only"] },
  renderError: (ctx, out) => {
    ctx.type = "application/json";
    ctx.body = out;
  },
});

// The test names who logs in with the `login_hint` it adds to the authorization request:
// the interaction logs that account in at once, or refuses when there is no such account.
const interaction = /^\/interaction\/[^/]+$/;
const handle = provider.callback();
server.on("request", async (request, response) => {
  if (!interaction.test(request.url.split("?")[0])) return handle(request, response);
  try {
    const details = await provider.interactionDetails(request, response);
    const accountId = details.params.login_hint;
    const result = accounts[accountId]
      ? { login: { accountId } }
      : { error: "access_denied", error_description: "no such account" };
    await provider.interactionFinished(request, response, result, { mergeWithLastSubmission: false });
  } catch (error) {
    response.statusCode = 500;
    response.end(String(error));
  }
});

process.send?.({ issuer });
// The test ends this process; it also ends with its parent, if the test dies first.
process.on("disconnect", () => process.exit(0));
