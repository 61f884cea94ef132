import { Type } from "typebox";
import { HeldToken } from "../personal-tokens/schemas.js";
import { RootRole, RootRoleRef, User } from "../users/schemas.js";

/** A service account with its tokens, as the reference's serviceAccountSchema: never a token's secret. */
export const ServiceAccount = Type.Object({ ...User.properties, tokens: Type.Array(HeldToken) });

export const ServiceAccountList = Type.Object({
  serviceAccounts: Type.Array(ServiceAccount),
  rootRoles: Type.Array(RootRole),
});

export const NewServiceAccount = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 255 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  rootRole: RootRoleRef,
});

export const ServiceAccountChanges = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  rootRole: Type.Optional(RootRoleRef),
});
