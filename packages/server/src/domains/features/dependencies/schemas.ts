import { type Static, Type } from "typebox";

export const Dependency = Type.Object({
  feature: Type.String({ minLength: 1 }),
  enabled: Type.Optional(Type.Boolean()),
  variants: Type.Optional(Type.Array(Type.String())),
});
export type DependencyInput = Static<typeof Dependency>;

export const ParentParams = Type.Object({
  projectId: Type.String(),
  featureName: Type.String(),
  parent: Type.String(),
});

/** A parent as a flag's view shows it. */
export const ParentView = Type.Object({
  feature: Type.String(),
  enabled: Type.Boolean(),
  variants: Type.Array(Type.String()),
});
