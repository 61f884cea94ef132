import {
  ApiError,
  authenticationRequired,
  invalidField,
  type LoginOption,
  noAccess,
  notFound,
} from "@signalbox/protocol";
import * as oidc from "openid-client";
import { type Actor, system } from "../../access/actor.js";
import type { Db } from "../../db/connection.js";
import type { EventService } from "../events/service.js";
import type { SessionService } from "../sessions/service.js";
import type { UserService } from "../users/service.js";
import { type LoginAttempt, localPath } from "./attempt.js";
import type {} from "./events.js";
import { connect, describe, ProviderProblem, unreachable } from "./provider.js";
import type { OidcSettingsInput, OidcSettingsView } from "./schemas.js";
import { authSettingsStore } from "./store.js";

const SETTINGS = "oidc";
const MASK = "********";
/** Where the provider sends people back, on whichever host they reached this service by. */
const CALLBACK_PATH = "/auth/oidc/callback";
// What finding a person by email needs; other scopes would ask people for more than is used.
const SCOPE = "openid email profile";
// The provider's metadata is fetched again after this long, in case it moved its endpoints.
const METADATA_TTL_MS = 60 * 60 * 1000;

type Settings = Omit<OidcSettingsView, "defaultRootRoleId"> & { defaultRootRoleId?: number };

const DEFAULTS: Settings = {
  enabled: false,
  discoverUrl: "",
  clientId: "",
  secret: "",
  autoCreate: false,
  emailDomains: "",
  defaultRootRole: "Viewer",
  acrValues: "",
  idTokenSigningAlgorithm: "RS256",
  assumeEmailVerified: false,
};

/** What the client at the provider is made from: another value of any of these is another client. */
const clientKey = (settings: Settings) =>
  JSON.stringify([
    settings.discoverUrl,
    settings.clientId,
    settings.secret,
    settings.idTokenSigningAlgorithm,
  ]);

const view = (settings: Settings): OidcSettingsView => ({ ...settings, secret: settings.secret ? MASK : "" });

/** Lower case, without `@`, without blanks: `@Example.com, b.io` is `example.com,b.io`. */
function emailDomains(list: string): string {
  const domains = list
    .split(",")
    .map((domain) => domain.trim().replace(/^@/, "").toLowerCase())
    .filter(Boolean);
  const wrong = domains.find((domain) => !/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(domain));
  if (wrong !== undefined) throw invalidField("emailDomains", `"${wrong}" is not an email domain.`);
  return domains.join(",");
}

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();

/** The claims a person is found by, from the ID token or, when it leaves them out, the userinfo endpoint. */
interface Profile {
  email: string | undefined;
  /** The `email_verified` claim; undefined when the provider left it out. */
  emailVerified: boolean | undefined;
  name: string | undefined;
}

/** The `email_verified` claim, which some providers send as a string. */
function verifiedClaim(value: unknown): boolean | undefined {
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  return undefined;
}

const text = (value: unknown) =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;

/**
 * Single sign-on with OpenID Connect: its settings, and signing people in with the
 * authorization code flow (state, nonce and PKCE), finding them by the email the provider
 * vouches for, and creating them at first sign-in when the settings say so.
 */
export class SsoService {
  private client: { key: string; at: number; config: Promise<oidc.Configuration> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly events: EventService,
    private readonly users: Pick<UserService, "findByEmail" | "create" | "rootRoles">,
    private readonly sessions: Pick<SessionService, "create">,
  ) {}

  async settings(_actor: Actor): Promise<OidcSettingsView> {
    return view(await this.stored());
  }

  /**
   * Replaces the settings, as the reference does, but for the secret: sent empty or masked,
   * the stored one is kept. Enabling checks the provider at once, so a wrong URL or a provider
   * that cannot do what signing in needs is refused here rather than at someone's sign-in.
   */
  async saveSettings(actor: Actor, input: OidcSettingsInput): Promise<OidcSettingsView> {
    const before = await this.stored();
    const settings: Settings = {
      enabled: input.enabled ?? false,
      discoverUrl: input.discoverUrl?.trim() ?? "",
      clientId: input.clientId?.trim() ?? "",
      secret: !input.secret || input.secret === MASK ? before.secret : input.secret,
      autoCreate: input.autoCreate ?? false,
      emailDomains: emailDomains(input.emailDomains ?? ""),
      defaultRootRole: input.defaultRootRole ?? DEFAULTS.defaultRootRole,
      ...(input.defaultRootRoleId === undefined ? {} : { defaultRootRoleId: input.defaultRootRoleId }),
      acrValues: input.acrValues?.trim() ?? "",
      idTokenSigningAlgorithm: input.idTokenSigningAlgorithm ?? DEFAULTS.idTokenSigningAlgorithm,
      assumeEmailVerified: input.assumeEmailVerified ?? false,
    };
    if (settings.discoverUrl) {
      const url = URL.parse(settings.discoverUrl);
      if (url?.protocol !== "https:" && url?.protocol !== "http:") {
        throw invalidField("discoverUrl", "discoverUrl must be an http:// or https:// URL.");
      }
    }
    const roleId = settings.defaultRootRoleId;
    if (roleId !== undefined && !(await this.users.rootRoles(actor)).some((role) => role.id === roleId)) {
      throw invalidField("defaultRootRoleId", `There is no root role with the id ${roleId}.`);
    }
    if (settings.enabled) {
      for (const field of ["discoverUrl", "clientId", "secret"] as const) {
        if (!settings[field]) throw invalidField(field, `${field} is needed to enable OpenID Connect.`);
      }
      try {
        this.remember(settings, await connect(settings));
      } catch (error) {
        if (!(error instanceof ProviderProblem)) throw error;
        throw invalidField("discoverUrl", `The OpenID provider cannot be used: ${error.message}.`);
      }
    }
    await this.events.change(actor, async (change) => {
      const existed = (await authSettingsStore.get(change.db, SETTINGS)) !== undefined;
      await authSettingsStore.put(change.db, SETTINGS, { ...settings });
      // The settings hold a secret: the events say what changed, never how, as the reference's do.
      const data = { id: SETTINGS, hideEventDetails: true as const };
      change.record(
        existed
          ? { type: "setting-updated", data, preData: { hideEventDetails: true } }
          : { type: "setting-created", data },
      );
    });
    return view(settings);
  }

  /** The provider's authorization URL to send the browser to, and the attempt it must bring back. */
  async beginLogin(
    origin: string,
    redirect: string | undefined,
  ): Promise<{ url: string; attempt: LoginAttempt }> {
    const settings = await this.enabled();
    const config = await this.configuration(settings);
    const attempt: LoginAttempt = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
      redirect: localPath(redirect) ?? "/",
    };
    const parameters: Record<string, string> = {
      redirect_uri: `${origin}${CALLBACK_PATH}`,
      scope: SCOPE,
      state: attempt.state,
      nonce: attempt.nonce,
      // Sent whether or not the provider advertises PKCE: one that does not ignores it.
      code_challenge: await oidc.calculatePKCECodeChallenge(attempt.verifier),
      code_challenge_method: "S256",
    };
    if (settings.acrValues) parameters.acr_values = settings.acrValues;
    return { url: oidc.buildAuthorizationUrl(config, parameters).href, attempt };
  }

  /**
   * Checks the provider's answer against the attempt, redeems the code, and opens a session
   * for the person the provider vouches for.
   */
  async completeLogin(
    origin: string,
    path: string,
    attempt: LoginAttempt | undefined,
  ): Promise<{ session: { id: string; expiresAt: Date }; redirect: string }> {
    const settings = await this.enabled();
    if (!attempt) {
      throw authenticationRequired(
        "This sign-in was not started in this browser, or took longer than 10 minutes: sign in again.",
      );
    }
    const config = await this.configuration(settings);
    const profile = await this.profile(config, new URL(path, origin), attempt);
    const userId = await this.person(settings, profile);
    // Checked again: the cookie came back from the browser, which may not be the one that got it.
    return { session: await this.sessions.create(userId), redirect: localPath(attempt.redirect) ?? "/" };
  }

  /** Signing in through the provider, when it is on: what a login page offers beside the password. */
  async loginOptions(): Promise<LoginOption[]> {
    const settings = await this.stored();
    return settings.enabled
      ? [{ type: "oidc", message: "Sign in with OpenID Connect", path: "/auth/oidc/login" }]
      : [];
  }

  private async stored(): Promise<Settings> {
    return { ...DEFAULTS, ...((await authSettingsStore.get(this.db, SETTINGS)) as Partial<Settings>) };
  }

  private async enabled(): Promise<Settings> {
    const settings = await this.stored();
    if (!settings.enabled) throw notFound("Signing in with OpenID Connect is not enabled.");
    return settings;
  }

  /** The client for the current settings: discovered once, and again when they change or it ages. */
  private async configuration(settings: Settings): Promise<oidc.Configuration> {
    const key = clientKey(settings);
    if (this.client?.key !== key || Date.now() - this.client.at > METADATA_TTL_MS) {
      const config = connect(settings);
      this.client = { key, at: Date.now(), config };
      // A provider that was down is asked again at the next sign-in, not an hour later.
      config.catch(() => {
        if (this.client?.config === config) this.client = undefined;
      });
    }
    try {
      return await this.client.config;
    } catch (error) {
      if (!(error instanceof ProviderProblem)) throw error;
      throw new ApiError("BadGateway", `The OpenID provider cannot be used: ${error.message}.`);
    }
  }

  private remember(settings: Settings, config: oidc.Configuration): void {
    this.client = { key: clientKey(settings), at: Date.now(), config: Promise.resolve(config) };
  }

  private async profile(config: oidc.Configuration, callback: URL, attempt: LoginAttempt): Promise<Profile> {
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callback, {
        expectedState: attempt.state,
        expectedNonce: attempt.nonce,
        pkceCodeVerifier: attempt.verifier,
      });
      const claims = tokens.claims()!;
      // Providers commonly keep the email out of the ID token of the code flow, for userinfo.
      const source =
        text(claims.email) || !config.serverMetadata().userinfo_endpoint
          ? claims
          : await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      return {
        email: text(source.email),
        emailVerified: verifiedClaim(source.email_verified),
        name: text(source.name) ?? text(claims.name),
      };
    } catch (error) {
      if (unreachable(error)) {
        throw new ApiError("BadGateway", `The OpenID provider could not be reached: ${describe(error)}.`);
      }
      if (error instanceof oidc.AuthorizationResponseError) {
        throw authenticationRequired(`The OpenID provider refused the sign-in: ${describe(error)}.`);
      }
      throw authenticationRequired(`The sign-in could not be verified: ${describe(error)}.`);
    }
  }

  /** The user the profile is, created at first sign-in when the settings allow it. */
  private async person(settings: Settings, profile: Profile): Promise<number> {
    const { email } = profile;
    if (!email) {
      throw noAccess(
        "The OpenID provider gave no email address for this account: people are found by their email, so the provider must release the email claim.",
      );
    }
    // People are found, and made, by their email: one the provider has not vouched for would let
    // whoever registered it there sign in as the user who has it here, admins included.
    const verified = profile.emailVerified ?? settings.assumeEmailVerified;
    if (!verified) {
      throw noAccess(
        profile.emailVerified === false
          ? `The OpenID provider says the email address ${email} is not verified.`
          : `The OpenID provider did not say the email address ${email} is verified (no email_verified claim): an admin may set assumeEmailVerified if the provider verifies every address.`,
      );
    }
    const user = await this.users.findByEmail(email);
    if (!user) return this.signUp(settings, email, profile.name);
    if (!user.isActive) throw noAccess(`The user with the email address ${email} is deactivated.`);
    if (user.accountType === "Service Account") {
      throw noAccess(`${email} belongs to a service account, which cannot sign in.`);
    }
    return user.id;
  }

  private async signUp(settings: Settings, email: string, name: string | undefined): Promise<number> {
    if (!settings.autoCreate) {
      throw authenticationRequired(
        `No user has the email address ${email}, and users are not created at sign-in: ask an admin to add you.`,
      );
    }
    // As the reference, the allowed domains limit who is created, not who signs in: a user an
    // admin added by hand signs in whatever their domain.
    const allowed = settings.emailDomains ? settings.emailDomains.split(",") : [];
    if (allowed.length > 0 && !allowed.includes(domainOf(email))) {
      throw noAccess(
        `Users are created at sign-in only for email addresses at ${allowed.join(", ")}; ${email} is not one: ask an admin to add you.`,
      );
    }
    try {
      const created = await this.users.create(system("oidc"), {
        email,
        name,
        rootRole: settings.defaultRootRoleId ?? settings.defaultRootRole,
      });
      return created.id;
    } catch (error) {
      // Two first sign-ins at once: the other one created the user.
      const raced = await this.users.findByEmail(email);
      if (raced) return raced.id;
      throw error;
    }
  }
}
