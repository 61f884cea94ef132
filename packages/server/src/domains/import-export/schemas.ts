import { type Static, Type } from "typebox";
import { Nullable, StoredConstraint } from "../../shared/schemas.js";
import { StoredVariant } from "../features/variants/schemas.js";

// The reference's export file (`exportResultSchema`), which is also the `data` of an import.
// An import reads what it needs of each entry and ignores the rest, so a file exported by
// the reference, or by an older version of either, imports as it is; each entry is checked
// against the schema of the write it becomes when it is written.

const Text = Type.Optional(Nullable(Type.String()));

export const ExportedFeature = Type.Object({
  name: Type.String({ minLength: 1 }),
  type: Type.Optional(Type.String()),
  description: Text,
  project: Type.Optional(Type.String()),
  stale: Type.Optional(Type.Boolean()),
  impressionData: Type.Optional(Type.Boolean()),
  archived: Type.Optional(Type.Boolean()),
});

export const ExportedStrategy = Type.Object({
  name: Type.String({ minLength: 1 }),
  id: Type.Optional(Type.String()),
  featureName: Type.Optional(Type.String()),
  title: Text,
  disabled: Type.Optional(Nullable(Type.Boolean())),
  sortOrder: Type.Optional(Type.Number()),
  segments: Type.Optional(Type.Array(Type.Number())),
  constraints: Type.Optional(Type.Array(StoredConstraint)),
  variants: Type.Optional(Type.Array(StoredVariant)),
  parameters: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
  ),
});
export type ExportedStrategy = Static<typeof ExportedStrategy>;

export const ExportedEnvironment = Type.Object({
  name: Type.String(),
  featureName: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  enabled: Type.Boolean(),
  variants: Type.Optional(Type.Array(StoredVariant)),
});

const LegalValue = Type.Object({ value: Type.String(), description: Type.Optional(Type.String()) });

export const ExportedContextField = Type.Object({
  name: Type.String({ minLength: 1 }),
  description: Text,
  stickiness: Type.Optional(Type.Boolean()),
  sortOrder: Type.Optional(Type.Integer()),
  legalValues: Type.Optional(Type.Array(LegalValue)),
});

/** `type` and `value` are the reference's older names for `tagType` and `tagValue`. */
export const ExportedTag = Type.Object({
  featureName: Type.String(),
  tagType: Type.Optional(Type.String()),
  tagValue: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  value: Type.Optional(Type.String()),
});

export const ExportedSegment = Type.Object({ id: Type.Number(), name: Type.String() });

export const ExportedTagType = Type.Object({
  name: Type.String({ minLength: 1 }),
  description: Text,
  icon: Text,
});

export const ExportedDependencies = Type.Object({
  feature: Type.String(),
  dependencies: Type.Array(
    Type.Object({
      feature: Type.String({ minLength: 1 }),
      enabled: Type.Optional(Type.Boolean()),
      variants: Type.Optional(Type.Array(Type.String())),
    }),
  ),
});

/** The reference's flag links: read so that its files import, but not kept here (see the README). */
const ExportedLinks = Type.Object({
  feature: Type.String(),
  links: Type.Array(Type.Object({ url: Type.String(), title: Text })),
});

export const ImportData = Type.Object({
  features: Type.Array(ExportedFeature),
  featureStrategies: Type.Array(ExportedStrategy),
  featureEnvironments: Type.Optional(Type.Array(ExportedEnvironment)),
  contextFields: Type.Optional(Type.Array(ExportedContextField)),
  featureTags: Type.Optional(Type.Array(ExportedTag)),
  segments: Type.Optional(Type.Array(ExportedSegment)),
  tagTypes: Type.Array(ExportedTagType),
  dependencies: Type.Optional(Type.Array(ExportedDependencies)),
  links: Type.Optional(Type.Array(ExportedLinks)),
});
export type ImportData = Static<typeof ImportData>;

export const ImportBody = Type.Object({
  project: Type.String({ minLength: 1 }),
  environment: Type.String({ minLength: 1 }),
  data: ImportData,
});
export type ImportBody = Static<typeof ImportBody>;

export const ExportQuery = Type.Object({
  environment: Type.String({ minLength: 1 }),
  features: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** `type:value`, or a value of any type. */
  tag: Type.Optional(Type.String({ minLength: 1 })),
  project: Type.Optional(Type.String({ minLength: 1 })),
  downloadFile: Type.Optional(Type.Boolean()),
});
export type ExportQuery = Static<typeof ExportQuery>;

/** What an export answers: the same file, every field filled as this service knows it. */
export const ExportResult = Type.Object({
  features: Type.Array(
    Type.Object({
      name: Type.String(),
      type: Type.String(),
      description: Nullable(Type.String()),
      project: Type.String(),
      stale: Type.Boolean(),
      impressionData: Type.Boolean(),
      archived: Type.Boolean(),
    }),
  ),
  featureStrategies: Type.Array(
    Type.Object({
      name: Type.String(),
      id: Type.String(),
      featureName: Type.String(),
      title: Nullable(Type.String()),
      disabled: Type.Boolean(),
      sortOrder: Type.Integer(),
      segments: Type.Array(Type.Integer()),
      constraints: Type.Array(StoredConstraint),
      variants: Type.Array(StoredVariant),
      parameters: Type.Record(Type.String(), Type.String()),
    }),
  ),
  featureEnvironments: Type.Array(
    Type.Object({
      name: Type.String(),
      featureName: Type.String(),
      environment: Type.String(),
      enabled: Type.Boolean(),
      variants: Type.Array(StoredVariant),
    }),
  ),
  contextFields: Type.Array(
    Type.Object({
      name: Type.String(),
      description: Nullable(Type.String()),
      stickiness: Type.Boolean(),
      sortOrder: Type.Integer(),
      legalValues: Type.Array(LegalValue),
    }),
  ),
  featureTags: Type.Array(
    Type.Object({ featureName: Type.String(), tagType: Type.String(), tagValue: Type.String() }),
  ),
  segments: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
  tagTypes: Type.Array(
    Type.Object({ name: Type.String(), description: Nullable(Type.String()), icon: Nullable(Type.String()) }),
  ),
  dependencies: Type.Array(
    Type.Object({
      feature: Type.String(),
      dependencies: Type.Array(
        Type.Object({ feature: Type.String(), enabled: Type.Boolean(), variants: Type.Array(Type.String()) }),
      ),
    }),
  ),
});
export type ExportResult = Static<typeof ExportResult>;

const Finding = Type.Object({ message: Type.String(), affectedItems: Type.Array(Type.String()) });
export type Finding = Static<typeof Finding>;

export const ValidationReport = Type.Object({
  errors: Type.Array(Finding),
  warnings: Type.Array(Finding),
  permissions: Type.Array(Finding),
});
export type ValidationReport = Static<typeof ValidationReport>;
