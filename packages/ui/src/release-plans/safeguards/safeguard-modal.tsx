import { Group, Modal, NumberInput, Select, Stack, Text } from "@mantine/core";
import { FormError } from "../../components/form-error";
import { FormActions } from "../../components/form-fields";
import { useCheckedForm } from "../../components/use-checked-form";
import { useFormSave } from "../../components/use-form-save";
import { LabelFilterFields, MetricFields } from "../../impact-metrics/metric-fields";
import type { SafeguardInput } from "../queries";
import {
  OPERATORS,
  type SafeguardDraft,
  safeguardBody,
  safeguardDraftOf,
  safeguardRules,
} from "./safeguard-draft";

/**
 * Makes or changes a safeguard: the impact metric it watches (from those SDKs reported, or
 * one typed that none has yet), how it is aggregated, over which series, and the value that
 * stops the release. `effect` says what stopping means here; `onSave` sends it, through the
 * change gate.
 */
export function SafeguardModal({
  title,
  effect,
  safeguard,
  submitLabel,
  onSave,
  onClose,
}: {
  title: string;
  effect: string;
  safeguard: Pick<SafeguardInput, "impactMetric" | "triggerCondition"> | undefined;
  submitLabel: string;
  onSave: (safeguard: SafeguardInput) => Promise<unknown>;
  onClose: () => void;
}) {
  const form = useCheckedForm<SafeguardDraft>({
    initialValues: safeguardDraftOf(safeguard),
    validate: safeguardRules,
  });
  const { mutation: save, submit } = useFormSave(form, {
    save: (draft) => onSave(safeguardBody(draft)),
    onSaved: onClose,
  });

  return (
    <Modal opened onClose={onClose} title={title} size="lg" closeOnClickOutside={false}>
      <form onSubmit={submit} aria-label={title}>
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            {effect}
          </Text>
          <MetricFields
            form={form}
            rangeLabel="Chart range"
            rangeDescription="What the safeguard's chart shows"
          />
          <Group grow align="flex-start">
            <Select
              label="Stop when the value is"
              data={Object.entries(OPERATORS).map(([value, label]) => ({ value, label }))}
              allowDeselect={false}
              {...form.getInputProps("operator")}
            />
            <NumberInput label="Threshold" required {...form.getInputProps("threshold")} />
          </Group>
          <LabelFilterFields form={form} />
          <FormError error={save.error} />
          <FormActions submitLabel={submitLabel} saving={save.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
