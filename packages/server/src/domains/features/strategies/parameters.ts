import { invalidField } from "@signalbox/protocol";

/**
 * Typed parameters hold what their type says, as the reference's form enforces: a
 * percentage is a number from 0 to 100 (a rollout of 150 would be on for everyone), a
 * number is a number, a boolean `true` or `false`. An empty value is left for defaults.
 */
export function checkParameters(
  declared: { name: string; type: string }[],
  parameters: Record<string, string>,
): void {
  for (const { name, type } of declared) {
    const value = parameters[name];
    if (value === undefined || value === "") continue;
    const number = Number(value);
    const problem =
      type === "percentage" && !(value.trim() !== "" && number >= 0 && number <= 100)
        ? "a number from 0 to 100"
        : type === "number" && !(value.trim() !== "" && Number.isFinite(number))
          ? "a number"
          : type === "boolean" && value !== "true" && value !== "false"
            ? "true or false"
            : undefined;
    if (problem)
      throw invalidField(`parameters.${name}`, `parameters.${name} must be ${problem}, got "${value}"`);
  }
}
