import { Type } from "typebox";
import { RootRole, RootRoleRef, User } from "../users/schemas.js";

export const ServiceAccountList = Type.Object({
  serviceAccounts: Type.Array(User),
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
