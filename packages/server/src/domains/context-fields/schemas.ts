import { type Static, Type } from "typebox";
import { Nullable, urlSafeName } from "../../shared/schemas.js";

export const ContextFieldName = Type.Object({ name: Type.String() });

export const LegalValuePath = Type.Object({ name: Type.String(), value: Type.String() });

export const LegalValue = Type.Object({
  value: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.Optional(Type.String()),
});
export type LegalValue = Static<typeof LegalValue>;

const changes = {
  description: Type.Optional(Nullable(Type.String())),
  stickiness: Type.Optional(Type.Boolean()),
  sortOrder: Type.Optional(Type.Integer()),
  legalValues: Type.Optional(Type.Array(LegalValue)),
};

export const NewContextField = Type.Object({ name: urlSafeName(), ...changes });
export type NewContextField = Static<typeof NewContextField>;

// The reference's clients send the whole field back, name included; the path names it.
export const ContextFieldUpdate = Type.Object({ name: Type.Optional(Type.String()), ...changes });

/** What a write may set; what it leaves out stays as it is. */
export type ContextFieldChanges = Omit<Static<typeof ContextFieldUpdate>, "name">;

export const ContextFieldNameCheck = Type.Object({ name: urlSafeName() });

export const ContextField = Type.Object({
  name: Type.String(),
  description: Nullable(Type.String()),
  stickiness: Type.Boolean(),
  sortOrder: Type.Integer(),
  legalValues: Type.Array(LegalValue),
  createdAt: Type.String({ format: "date-time" }),
  usedInFeatures: Type.Integer(),
  usedInProjects: Type.Integer(),
});
export type ContextFieldView = Static<typeof ContextField>;
