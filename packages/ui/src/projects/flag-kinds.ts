import type { paths } from "../api/client";

type NewFlag =
  paths["/api/admin/projects/{projectId}/features"]["post"]["requestBody"]["content"]["application/json"];
export type FlagType = NonNullable<NewFlag["type"]>;

/** Every type the service takes (the record must name each), with what it is for. */
const TYPES: Record<FlagType, { label: string; description: string }> = {
  release: { label: "Release", description: "Ships a feature gradually; removed once it is out." },
  experiment: { label: "Experiment", description: "Tries variants against each other (A/B tests)." },
  operational: { label: "Operational", description: "Switches technical behaviour, such as a migration." },
  "kill-switch": { label: "Kill switch", description: "Turns a feature off when it misbehaves; long-lived." },
  permission: { label: "Permission", description: "Gives a feature to some users only; long-lived." },
};

export const FLAG_TYPES = (Object.keys(TYPES) as FlagType[]).map((value) => ({ value, ...TYPES[value] }));

export const typeLabel = (type: string) => TYPES[type as FlagType]?.label ?? type;

/** The lifecycle stages an active flag goes through, in order. */
export const STAGES = [
  { value: "initial", label: "Initial" },
  { value: "pre-live", label: "Pre-live" },
  { value: "live", label: "Live" },
  { value: "completed", label: "Completed" },
];

export const stageLabel = (stage: string) => STAGES.find((entry) => entry.value === stage)?.label ?? stage;
