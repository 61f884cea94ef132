import { type Static, Type } from "typebox";
import { Nullable } from "../../../shared/schemas.js";
import { Person } from "../../users/schemas.js";

const DateTime = Type.String({ format: "date-time" });
const NullableText = Nullable(Type.String());

export const GroupId = Type.Object({ groupId: Type.Integer() });

export const Group = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: NullableText,
  /** The root role every user of the group holds through it. */
  rootRole: Nullable(Type.Integer()),
  createdAt: DateTime,
  users: Type.Array(Type.Object({ joinedAt: DateTime, user: Person })),
  userCount: Type.Integer(),
  /** The projects in which the group holds a role. */
  projects: Type.Array(Type.String()),
});
export type GroupView = Static<typeof Group>;

export const GroupList = Type.Object({ groups: Type.Array(Group) });

export const NewGroup = Type.Object({
  // Not blank: a name of spaces could not be told apart in a listing.
  name: Type.String({ minLength: 1, maxLength: 255, pattern: "\\S" }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  rootRole: Type.Optional(Nullable(Type.Integer())),
  users: Type.Optional(
    Type.Array(Type.Object({ user: Type.Object({ id: Type.Integer() }) }), { maxItems: 10_000 }),
  ),
});
export type NewGroup = Static<typeof NewGroup>;
