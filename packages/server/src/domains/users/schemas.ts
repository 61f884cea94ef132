import { type Static, Type } from "typebox";
import { Nullable } from "../../shared/schemas.js";

export const UserId = Type.Object({ id: Type.Integer() });

const Text = (maxLength = 255) => Type.String({ minLength: 1, maxLength });
const Email = Type.String({ minLength: 3, maxLength: 255, format: "email" });

/** A root role by id, or by name as the reference's clients send it ("Editor"). */
export const RootRoleRef = Type.Union([
  Type.Integer({ minimum: 0 }),
  Type.String({ minLength: 1, maxLength: 255 }),
]);

/** A person or a service account, as the reference's userSchema shows one; never a password or its hash. */
export const User = Type.Object({
  id: Type.Integer(),
  name: Nullable(Type.String()),
  username: Nullable(Type.String()),
  email: Type.Optional(Type.String()),
  imageUrl: Type.Optional(Type.String()),
  rootRole: Type.Integer(),
  accountType: Type.Union([Type.Literal("User"), Type.Literal("Service Account")]),
  /** Deactivated users keep their data but cannot log in, and their tokens stop working. */
  isActive: Type.Boolean(),
  isAPI: Type.Literal(false),
  createdAt: Type.String({ format: "date-time" }),
  seenAt: Nullable(Type.String({ format: "date-time" })),
});
export type UserView = Static<typeof User>;

/** A user as listings of groups and project members show them. */
export const Person = Type.Object({
  id: Type.Integer(),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  username: Nullable(Type.String()),
  imageUrl: Nullable(Type.String()),
});
export type PersonView = Static<typeof Person>;

export const RootRole = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  name: Type.String(),
  description: Type.String(),
});
export type RootRoleView = Static<typeof RootRole>;

export const UserList = Type.Object({ users: Type.Array(User), rootRoles: Type.Array(RootRole) });

/** The caller's own profile, as the reference's profileSchema without its deprecated `features`. */
export const Profile = Type.Object({
  rootRole: RootRole,
  /** The projects where the caller holds a project role, themself or through a group. */
  projects: Type.Array(Type.String()),
});
export type Profile = Static<typeof Profile>;

// At least one of email and username, which the service checks: a schema cannot say it
// in a way the reference's clients' error handling understands.
export const NewUser = Type.Object({
  username: Type.Optional(Text()),
  email: Type.Optional(Email),
  name: Type.Optional(Text()),
  password: Type.Optional(Type.String({ maxLength: 1000 })),
  rootRole: RootRoleRef,
  /** Accepted for the reference's clients; Signalbox sends no email. */
  sendEmail: Type.Optional(Type.Boolean()),
});
export type NewUser = Static<typeof NewUser>;

export const UserChanges = Type.Object({
  name: Type.Optional(Text()),
  email: Type.Optional(Email),
  rootRole: Type.Optional(RootRoleRef),
  isActive: Type.Optional(Type.Boolean()),
});
export type UserChanges = Static<typeof UserChanges>;

export const NewPassword = Type.Object({ password: Type.String({ maxLength: 1000 }) });

/** A change of one's own password: the old one proves it is the user, not a stolen session. */
export const PasswordChange = Type.Object({
  password: Type.String({ maxLength: 1000 }),
  confirmPassword: Type.String({ maxLength: 1000 }),
  oldPassword: Type.String({ maxLength: 1000 }),
});
export type PasswordChange = Static<typeof PasswordChange>;

/** Whom to make a reset link for: their id, email or username. */
export const ResetRequest = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });

export const ResetLink = Type.Object({ resetPasswordUrl: Type.String() });

export const ResetTokenQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });

export const ResetTokenUser = Type.Object({
  id: Type.Integer(),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  token: Type.String(),
  /** Who made the link; not recorded yet, so null. */
  createdBy: Nullable(Type.String()),
  role: RootRole,
});
export type ResetTokenUser = Static<typeof ResetTokenUser>;

export const PasswordReset = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  password: Type.String({ maxLength: 1000 }),
});

export const GrantedPermission = Type.Object({
  permission: Type.String(),
  project: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
});
export type GrantedPermission = Static<typeof GrantedPermission>;

const { isAPI: _, ...person } = User.properties;

/** The current user, as the reference's meSchema: who they are and what they may do. */
export const Me = Type.Object({
  user: Type.Object(person),
  permissions: Type.Array(GrantedPermission),
  feedback: Type.Array(Type.Object({})),
  splash: Type.Record(Type.String(), Type.Boolean()),
});
export type Me = Static<typeof Me>;
