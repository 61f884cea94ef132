import { type Static, Type } from "typebox";
import { Nullable } from "../../shared/schemas.js";

const DateTime = Type.String({ format: "date-time" });

export const TokenKey = Type.Object({ token: Type.String() });

export const NewToken = Type.Object({
  tokenName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  /** The reference's older name for tokenName. */
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  /** client, backend (the reference's newer name for client), frontend or admin, in any case. */
  type: Type.String(),
  environment: Type.Optional(Type.String({ minLength: 1 })),
  /** The reference's older way to name a single project. */
  project: Type.Optional(Type.String({ minLength: 1 })),
  projects: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  expiresAt: Type.Optional(Nullable(DateTime)),
});
export type NewToken = Static<typeof NewToken>;

export const TokenExpiry = Type.Object({ expiresAt: DateTime });

export const Token = Type.Object({
  id: Type.Integer(),
  tokenName: Type.String(),
  username: Type.String(),
  type: Type.Enum(["client", "frontend", "admin"]),
  environment: Type.String(),
  /** `*` for every project, the one project, or `[]` when the token names several. */
  project: Type.String(),
  projects: Type.Array(Type.String()),
  secretPrefix: Type.String(),
  createdAt: DateTime,
  expiresAt: Nullable(DateTime),
  seenAt: Nullable(DateTime),
});
export type TokenView = Static<typeof Token>;

/** A token as its creation answers: the only time its secret is shown. */
export const CreatedToken = Type.Object({ ...Token.properties, secret: Type.String() });
export type CreatedToken = Static<typeof CreatedToken>;

export const TokenList = Type.Object({ tokens: Type.Array(Token) });

/** What an Unleash Edge (or Signalbox's proxy in its place) asks about tokens SDKs bring it. */
export const TokensToValidate = Type.Object({
  tokens: Type.Array(Type.String(), { maxItems: 1000, description: "Secrets to check" }),
});

export const ValidatedTokens = Type.Object({
  tokens: Type.Array(
    Type.Object({
      token: Type.String(),
      type: Type.Enum(["client", "frontend"]),
      projects: Type.Array(Type.String()),
      environment: Type.String(),
    }),
    { description: "The valid ones among the secrets sent, with what each may read" },
  ),
});
export type ValidatedTokens = Static<typeof ValidatedTokens>;
