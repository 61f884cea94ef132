import { type Static, Type } from "typebox";

/** The predefined root roles a new user may be given by name, as the reference's enum lists them. */
export const DefaultRootRole = Type.Union([
  Type.Literal("Viewer"),
  Type.Literal("Editor"),
  Type.Literal("Admin"),
]);

/** The algorithms the reference lets an admin require of ID token signatures. */
export const IdTokenSigningAlgorithm = Type.Union([
  Type.Literal("RS256"),
  Type.Literal("RS384"),
  Type.Literal("RS512"),
]);

const settingsFields = {
  enabled: Type.Boolean({ description: "Whether people may sign in with OpenID Connect" }),
  discoverUrl: Type.String({
    maxLength: 2000,
    description: "The provider's issuer URL, or its discovery document (…/.well-known/openid-configuration)",
  }),
  clientId: Type.String({ maxLength: 500, description: "This service's client id at the provider" }),
  secret: Type.String({
    maxLength: 2000,
    description:
      "The client secret. Never shown: reads give ******** when one is set, and a save that sends it empty or masked keeps it",
  }),
  autoCreate: Type.Boolean({ description: "Create a user at first sign-in for an email no user has" }),
  emailDomains: Type.String({
    maxLength: 2000,
    description: "Comma-separated email domains that users may be created for; empty allows any",
  }),
  defaultRootRole: DefaultRootRole,
  defaultRootRoleId: Type.Integer({
    minimum: 1,
    description: "The root role given to created users, by id; takes precedence over defaultRootRole",
  }),
  acrValues: Type.String({
    maxLength: 500,
    description: "Space-separated authentication context classes asked of the provider (acr_values)",
  }),
  idTokenSigningAlgorithm: IdTokenSigningAlgorithm,
  assumeEmailVerified: Type.Boolean({
    description:
      "Take an email the provider sends without an email_verified claim as verified. Only for a provider that verifies every address: otherwise whoever registers someone's address there signs in as them",
  }),
};

/** What an admin saves; what it leaves out takes its default (the secret: the stored one). */
export const OidcSettingsInput = Type.Object({
  enabled: Type.Optional(settingsFields.enabled),
  discoverUrl: Type.Optional(settingsFields.discoverUrl),
  clientId: Type.Optional(settingsFields.clientId),
  secret: Type.Optional(settingsFields.secret),
  autoCreate: Type.Optional(settingsFields.autoCreate),
  emailDomains: Type.Optional(settingsFields.emailDomains),
  defaultRootRole: Type.Optional(settingsFields.defaultRootRole),
  defaultRootRoleId: Type.Optional(settingsFields.defaultRootRoleId),
  acrValues: Type.Optional(settingsFields.acrValues),
  idTokenSigningAlgorithm: Type.Optional(settingsFields.idTokenSigningAlgorithm),
  assumeEmailVerified: Type.Optional(settingsFields.assumeEmailVerified),
});
export type OidcSettingsInput = Static<typeof OidcSettingsInput>;

/** The settings as an admin reads them: the secret masked. */
export const OidcSettings = Type.Object({
  ...settingsFields,
  defaultRootRoleId: Type.Optional(settingsFields.defaultRootRoleId),
});
export type OidcSettingsView = Static<typeof OidcSettings>;

export const LoginQuery = Type.Object({
  redirect: Type.Optional(
    Type.String({ maxLength: 2000, description: "A path on this server to return to once signed in" }),
  ),
});

/** The provider's answer, as OpenID Connect defines it; other parameters are let through for its checks. */
export const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  iss: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  error_description: Type.Optional(Type.String()),
});
