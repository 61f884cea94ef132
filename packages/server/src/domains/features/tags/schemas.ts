import { type Static, Type } from "typebox";

export const Tag = Type.Object({
  type: Type.Optional(Type.String({ minLength: 2, maxLength: 50 })),
  value: Type.String({ minLength: 2, maxLength: 50 }),
});
export type TagInput = Static<typeof Tag>;

export const TagChanges = Type.Object({
  addedTags: Type.Optional(Type.Array(Tag)),
  removedTags: Type.Optional(Type.Array(Tag)),
});

export const BulkTagChanges = Type.Object({
  features: Type.Array(Type.String(), { minItems: 1 }),
  tags: TagChanges,
});

export const TagParams = Type.Object({
  featureName: Type.String(),
  type: Type.String(),
  value: Type.String(),
});

/** A tag as stored and shown, its type filled in. */
export const FeatureTag = Type.Object({ type: Type.String(), value: Type.String() });
export type FeatureTag = Static<typeof FeatureTag>;

export const TagsReply = Type.Object({ version: Type.Integer(), tags: Type.Array(FeatureTag) });
