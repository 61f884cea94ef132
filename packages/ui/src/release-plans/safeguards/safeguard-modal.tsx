import { Autocomplete, Group, Modal, NumberInput, Select, Stack, TagsInput, Text } from "@mantine/core";
import { EditableList, RemoveRowButton } from "../../components/editable-list";
import { FormError } from "../../components/form-error";
import { FormActions } from "../../components/form-fields";
import { describeFailure } from "../../components/notify";
import { pickHint } from "../../components/pick-hint";
import { useCheckedForm } from "../../components/use-checked-form";
import { useFormSave } from "../../components/use-form-save";
import { useMetricsMetadata } from "../../impact-metrics/queries";
import type { SafeguardInput } from "../queries";
import {
  AGGREGATIONS,
  aggregationsFor,
  type LabelFilter,
  OPERATORS,
  type SafeguardDraft,
  safeguardBody,
  safeguardDraftOf,
  safeguardRules,
  TIME_RANGES,
} from "./safeguard-draft";

const options = <K extends string>(labels: Record<K, string>, keys = Object.keys(labels) as K[]) =>
  keys.map((value) => ({ value, label: labels[value] }));

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
  const metadata = useMetricsMetadata();
  const metrics = metadata.data?.metrics ?? [];
  const form = useCheckedForm<SafeguardDraft>({
    initialValues: safeguardDraftOf(safeguard),
    validate: safeguardRules,
  });
  const { mutation: save, submit } = useFormSave(form, {
    save: (draft) => onSave(safeguardBody(draft)),
    onSaved: onClose,
  });
  const { values } = form;
  const metric = metrics.find((candidate) => candidate.name === values.metricName.trim());
  const modes = aggregationsFor(metric?.type);
  const labelNames = Object.keys(metric?.labels ?? {});

  return (
    <Modal opened onClose={onClose} title={title} size="lg" closeOnClickOutside={false}>
      <form onSubmit={submit} aria-label={title}>
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            {effect}
          </Text>
          <Autocomplete
            label="Metric"
            description={
              metric
                ? `A ${metric.type}${metric.help ? `: ${metric.help}` : ""}`
                : "An impact metric SDKs report, as unleash_<type>_<name>"
            }
            placeholder={metadata.isPending ? "Loading the metrics…" : "unleash_counter_errors"}
            data={metrics.map((candidate) => candidate.name)}
            required
            {...form.getInputProps("metricName")}
            onChange={(name) => {
              form.setFieldValue("metricName", name);
              // A counter's percentile means nothing: the aggregation follows the metric's type.
              const type = metrics.find((candidate) => candidate.name === name.trim())?.type;
              const allowed = aggregationsFor(type);
              if (!allowed.includes(form.values.aggregationMode))
                form.setFieldValue("aggregationMode", allowed[0]!);
            }}
          />
          {metadata.isError && (
            <Text size="sm" c="red">
              The metrics reported could not be listed: {describeFailure(metadata.error)}
            </Text>
          )}
          <Group grow align="flex-start">
            <Select
              label="Aggregation"
              data={options(AGGREGATIONS, modes)}
              allowDeselect={false}
              {...form.getInputProps("aggregationMode")}
            />
            <Select
              label="Chart range"
              description="What the safeguard's chart shows"
              data={options(TIME_RANGES)}
              allowDeselect={false}
              {...form.getInputProps("timeRange")}
            />
          </Group>
          <Group grow align="flex-start">
            <Select
              label="Stop when the value is"
              data={options(OPERATORS)}
              allowDeselect={false}
              {...form.getInputProps("operator")}
            />
            <NumberInput label="Threshold" required {...form.getInputProps("threshold")} />
          </Group>
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Label filters
            </Text>
            <Text size="xs" c="dimmed">
              Only the series whose label has one of the values picked count; none: every series.
            </Text>
            <EditableList<LabelFilter>
              value={values.labels}
              onChange={(labels) => form.setFieldValue("labels", labels)}
              newItem={() => ({ label: "", values: [] })}
              addLabel="Add label filter"
              size="xs"
            >
              {({ item, index, remove }) => (
                <Group align="flex-start" wrap="nowrap">
                  <Autocomplete
                    label="Label"
                    data={labelNames}
                    flex={1}
                    {...form.getInputProps(`labels.${index}.label`)}
                  />
                  <TagsInput
                    label="Values"
                    placeholder={pickHint(item.values, "Type a value, then Enter")}
                    data={metric?.labels[item.label.trim()] ?? []}
                    flex={2}
                    clearable
                    {...form.getInputProps(`labels.${index}.values`)}
                  />
                  <RemoveRowButton label={`Remove label filter ${index + 1}`} mt={24} onClick={remove} />
                </Group>
              )}
            </EditableList>
          </Stack>
          <FormError error={save.error} />
          <FormActions submitLabel={submitLabel} saving={save.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
