import type { paths } from "../api/client";

type StrategyBody = NonNullable<
  paths["/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies"]["post"]["requestBody"]
>["content"]["application/json"];

/**
 * A variant as the editor writes it: the strategy body's variant, which is the flag body's
 * with its weight type and stickiness required, so one list fits either PUT.
 */
export type Variant = NonNullable<StrategyBody["variants"]>[number];
export type Payload = NonNullable<Variant["payload"]>;
export type PayloadType = Payload["type"];
export type Override = NonNullable<Variant["overrides"]>[number];

/** A variant as the service shows it, on a flag's environment or in a strategy. */
export type StoredVariant =
  paths["/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants"]["get"]["responses"][200]["content"]["application/json"]["variants"][number];

export const PAYLOAD_TYPES: readonly PayloadType[] = ["string", "json", "number", "csv"];

/**
 * Stored variants as the editor takes them. The service reads a missing weight type as
 * variable and a missing stickiness as `default`, so the editor shows them that way.
 */
export function fromStored(variants: readonly StoredVariant[]): Variant[] {
  return variants.map(({ weightType, stickiness, payload, ...variant }) => ({
    ...variant,
    weightType: weightType === "fix" ? "fix" : "variable",
    stickiness: stickiness ?? "default",
    // The service accepts only the four payload types, so anything else is text.
    ...(payload
      ? {
          payload: {
            type: PAYLOAD_TYPES.find((known) => known === payload.type) ?? "string",
            value: payload.value,
          },
        }
      : {}),
  }));
}

/** How a variant is called in legends and messages: its place, and its name once it has one. */
export const variantLabel = (variant: Variant, index: number) =>
  variant.name ? `Variant ${index + 1}: ${variant.name}` : `Variant ${index + 1}`;
