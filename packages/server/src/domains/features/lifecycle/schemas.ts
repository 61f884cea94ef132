import { type Static, Type } from "typebox";

export const Completion = Type.Object({
  status: Type.Enum(["kept", "discarded"]),
  statusValue: Type.Optional(Type.String()),
});
export type Completion = Static<typeof Completion>;

const enteredStageAt = Type.String({ format: "date-time" });

/** A stage a flag has entered, as endpoint 15 lists them. */
export const StageEntry = Type.Object({
  stage: Type.String(),
  status: Type.Optional(Type.String()),
  enteredStageAt,
});
export type StageEntry = Static<typeof StageEntry>;

/** The stage a flag is in, as its view shows it. */
export const CurrentStage = Type.Object({ stage: Type.String(), enteredStageAt });
export type CurrentStage = Static<typeof CurrentStage>;
