import { type Static, Type } from "typebox";
import { Nullable } from "../../shared/schemas.js";

const DateTime = Type.String({ format: "date-time" });

/** The description's rules (not empty, unique per user) are the service's, with the reference's messages. */
export const NewPersonalToken = Type.Object({
  description: Type.String(),
  expiresAt: DateTime,
});
export type NewPersonalToken = Static<typeof NewPersonalToken>;

export const PersonalToken = Type.Object({
  id: Type.Integer(),
  description: Type.String(),
  userId: Type.Integer(),
  createdAt: DateTime,
  expiresAt: DateTime,
  seenAt: Nullable(DateTime),
});
export type PersonalTokenView = Static<typeof PersonalToken>;

const { userId: _, ...held } = PersonalToken.properties;

/** A token as the account holding it shows it, as the reference's service accounts list theirs. */
export const HeldToken = Type.Object(held);
export type HeldTokenView = Static<typeof HeldToken>;

/** A token as its creation answers: the only time its secret is shown. */
export const CreatedPersonalToken = Type.Object({ ...PersonalToken.properties, secret: Type.String() });
export type CreatedPersonalToken = Static<typeof CreatedPersonalToken>;

export const PersonalTokenList = Type.Object({ pats: Type.Array(PersonalToken) });

export const PersonalTokenKey = Type.Object({ id: Type.Integer() });
export const ServiceAccountKey = Type.Object({ id: Type.Integer() });
export const ServiceAccountTokenKey = Type.Object({ id: Type.Integer(), tokenId: Type.Integer() });
