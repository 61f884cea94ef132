import { type Static, Type } from "typebox";

/** The path parameters the flag sub-domains share: a flag lives in a project, and per environment. */
export const ProjectParams = Type.Object({ projectId: Type.String() });
export const FeatureParams = Type.Object({ projectId: Type.String(), featureName: Type.String() });
export const EnvironmentParams = Type.Object({
  projectId: Type.String(),
  featureName: Type.String(),
  environment: Type.String(),
});
/** A flag named without its project: the reference's older paths. */
export const FeatureNameParams = Type.Object({ featureName: Type.String() });

export type FeatureParams = Static<typeof FeatureParams>;
export type EnvironmentParams = Static<typeof EnvironmentParams>;
