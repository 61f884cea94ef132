import { type Static, Type } from "typebox";

const DateTime = Type.String({ format: "date-time" });
const NullableText = Type.Union([Type.String(), Type.Null()]);

export const GroupId = Type.Object({ groupId: Type.Integer() });

/** A user as access listings show them. */
export const Person = Type.Object({
  id: Type.Integer(),
  name: NullableText,
  email: NullableText,
  username: NullableText,
  imageUrl: NullableText,
});
export type PersonView = Static<typeof Person>;

export const Group = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: NullableText,
  /** The root role every user of the group holds through it. */
  rootRole: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: DateTime,
  users: Type.Array(Type.Object({ joinedAt: DateTime, user: Person })),
  userCount: Type.Integer(),
  /** The projects in which the group holds a role. */
  projects: Type.Array(Type.String()),
});
export type GroupView = Static<typeof Group>;

export const GroupList = Type.Object({ groups: Type.Array(Group) });

// Null first: the schemas coerce types, and a null tried against a number first would become 0.
export const NewGroup = Type.Object({
  // Not blank: a name of spaces could not be told apart in a listing.
  name: Type.String({ minLength: 1, maxLength: 255, pattern: "\\S" }),
  description: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 1000 })])),
  rootRole: Type.Optional(Type.Union([Type.Null(), Type.Integer()])),
  users: Type.Optional(
    Type.Array(Type.Object({ user: Type.Object({ id: Type.Integer() }) }), { maxItems: 10_000 }),
  ),
});
export type NewGroup = Static<typeof NewGroup>;
