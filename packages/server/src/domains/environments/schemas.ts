import { type Static, Type } from "typebox";
import { urlSafeName } from "../../shared/schemas.js";

const EnvironmentType = Type.String({ minLength: 1, maxLength: 100 });

export const EnvironmentName = Type.Object({ name: Type.String() });

export const NewEnvironment = Type.Object({
  name: urlSafeName(),
  type: EnvironmentType,
  enabled: Type.Optional(Type.Boolean()),
  sortOrder: Type.Optional(Type.Integer()),
});
export type NewEnvironment = Static<typeof NewEnvironment>;

export const EnvironmentUpdate = Type.Object({
  type: EnvironmentType,
  sortOrder: Type.Optional(Type.Integer()),
});
export type EnvironmentUpdate = Static<typeof EnvironmentUpdate>;

/** New positions by environment name. */
export const SortOrder = Type.Record(Type.String(), Type.Integer());
export type SortOrder = Static<typeof SortOrder>;

export const Environment = Type.Object({
  name: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  sortOrder: Type.Integer(),
  protected: Type.Boolean(),
  projectCount: Type.Integer(),
});
export type EnvironmentView = Static<typeof Environment>;

export const EnvironmentList = Type.Object({
  version: Type.Literal(1),
  environments: Type.Array(Environment),
});
