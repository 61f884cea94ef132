import { Alert, NativeSelect, Stack, Text } from "@mantine/core";
import { EditableList } from "../components/editable-list";
import { describeFailure } from "../components/notify";
import { stickinessOptions, useContextFields } from "./context-fields";
import { problemsOf } from "./problems";
import type { Variant } from "./variant";
import { VariantFieldset } from "./variant-fieldset";
import { fixedTotal, formatPercent, settleWeights, TOTAL_WEIGHT } from "./weights";

export { payloadProblem, variantsProblem } from "./problems";
export { fromStored, type StoredVariant, type Variant } from "./variant";

/** Every variant is sticky on the same thing: SDKs use the first variant's stickiness for the list. */
const stickyOn = (variants: readonly Variant[], stickiness: string) =>
  variants.map((variant) => (variant.stickiness === stickiness ? variant : { ...variant, stickiness }));

/**
 * The variants of a flag in one environment (`kind: "flag"`, with overrides) or of one
 * strategy. The weights shown are those the service will store; every change is handed
 * on, even one the service would refuse, and `variantsProblem(value)` says what is wrong.
 */
export function VariantsEditor({
  value,
  onChange,
  kind,
  environment,
}: {
  value: Variant[];
  onChange: (next: Variant[]) => void;
  kind: "flag" | "strategy";
  environment?: string;
}) {
  const contextFields = useContextFields();
  const fields = contextFields.data ?? [];
  const variants = settleWeights(value);
  const problems = problemsOf(variants);
  const stickiness = variants[0]?.stickiness ?? "default";
  const total = variants.reduce((sum, variant) => sum + variant.weight, 0);
  const emit = (next: Variant[], sticky = stickiness) => onChange(settleWeights(stickyOn(next, sticky)));
  const overweight = fixedTotal(variants) > TOTAL_WEIGHT;
  const subject = kind === "flag" ? "Variants" : "Strategy variants";

  return (
    <Stack role="group" aria-label={environment ? `${subject} in ${environment}` : subject} gap="md">
      {contextFields.isError && (
        <Text size="sm" c="red">
          Context fields could not be loaded, so only the built-in stickiness and existing overrides are
          offered: {describeFailure(contextFields.error)}
        </Text>
      )}
      {variants.length > 0 && (
        <NativeSelect
          label="Stickiness"
          description="What keeps a user on the same variant; default is the user id, else the session id, else random."
          maw={360}
          data={stickinessOptions(fields, stickiness)}
          value={stickiness}
          onChange={(event) => emit(variants, event.currentTarget.value)}
        />
      )}
      <EditableList
        value={variants}
        onChange={(next) => emit(next)}
        newItem={(): Variant => ({ name: "", weight: 0, weightType: "variable", stickiness })}
        addLabel="Add variant"
        gap="md"
        empty={
          kind === "flag"
            ? "No variants here: SDKs answer this flag with the “disabled” variant."
            : "No variants: users this strategy matches get the flag's own variants."
        }
        footer={
          variants.length > 0 && (
            <Text fw={600} c={total === TOTAL_WEIGHT ? undefined : "red"}>
              Total: {formatPercent(total)}
            </Text>
          )
        }
      >
        {({ item, index, change, remove }) => (
          <VariantFieldset
            index={index}
            variant={item}
            problems={problems.variants[index]!}
            overweight={overweight}
            withOverrides={kind === "flag"}
            fields={fields}
            onChange={change}
            onRemove={remove}
          />
        )}
      </EditableList>
      {problems.weights && (
        <Alert color="red" title="The weights do not add up">
          {problems.weights}
        </Alert>
      )}
    </Stack>
  );
}
