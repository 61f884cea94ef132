import { type Static, Type } from "typebox";
import { Nullable, urlSafeName } from "../../shared/schemas.js";

export const TagTypeName = Type.Object({ name: Type.String() });

const NullableText = Type.Optional(Nullable(Type.String()));

export const TagTypeChanges = Type.Object({ description: NullableText, icon: NullableText });
export type TagTypeChanges = Static<typeof TagTypeChanges>;

// The reference's tag type names: URL-safe, 2 to 50 characters.
export const NewTagType = Type.Object({
  name: urlSafeName({ minLength: 2, maxLength: 50 }),
  ...TagTypeChanges.properties,
});
export type NewTagType = Static<typeof NewTagType>;

export const TagType = Type.Object({
  name: Type.String(),
  description: Nullable(Type.String()),
  icon: Nullable(Type.String()),
});
export type TagTypeView = Static<typeof TagType>;

export const TagTypeList = Type.Object({ version: Type.Literal(1), tagTypes: Type.Array(TagType) });

export const OneTagType = Type.Object({ version: Type.Literal(1), tagType: TagType });

export const TagTypeValidation = Type.Object({ valid: Type.Literal(true), tagType: TagType });
