import { Autocomplete, Group, Select, Stack, TagsInput, Text } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { EditableList, RemoveRowButton } from "../components/editable-list";
import { describeFailure } from "../components/notify";
import { pickHint } from "../components/pick-hint";
import {
  AGGREGATIONS,
  aggregationsFor,
  type LabelFilter,
  type MetricDraft,
  TIME_RANGES,
} from "./metric-draft";
import { type MetricInfo, useMetricsMetadata } from "./queries";

/** A form whose values hold a metric's fields (a chart's, a safeguard's). */
type MetricForm = Pick<UseFormReturnType<MetricDraft>, "values" | "getInputProps" | "setFieldValue">;

const options = <K extends string>(labels: Record<K, string>, keys = Object.keys(labels) as K[]) =>
  keys.map((value) => ({ value, label: labels[value] }));

/** The metric the form names, among those SDKs reported; undefined for one typed that none has yet. */
export function usePickedMetric(name: string): MetricInfo | undefined {
  const metadata = useMetricsMetadata();
  return metadata.data?.metrics.find((candidate) => candidate.name === name.trim());
}

/**
 * A metric to read: picked from those SDKs reported (or typed, for one none has reported yet),
 * aggregated as its type allows, over a range. `rangeLabel` and `rangeDescription` say what
 * the range is for here.
 */
export function MetricFields({
  form,
  rangeLabel = "Time range",
  rangeDescription,
}: {
  form: MetricForm;
  rangeLabel?: string;
  rangeDescription?: string;
}) {
  const metadata = useMetricsMetadata();
  const metrics = metadata.data?.metrics ?? [];
  const metric = usePickedMetric(form.values.metricName);
  return (
    <>
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
          data={options(AGGREGATIONS, aggregationsFor(metric?.type))}
          allowDeselect={false}
          {...form.getInputProps("aggregationMode")}
        />
        <Select
          label={rangeLabel}
          description={rangeDescription}
          data={options(TIME_RANGES)}
          allowDeselect={false}
          {...form.getInputProps("timeRange")}
        />
      </Group>
    </>
  );
}

/**
 * The label filters of a metric: each a label (those the metric was reported with offered)
 * and the values kept (those seen offered). None: every series.
 */
export function LabelFilterFields({ form }: { form: MetricForm }) {
  const metric = usePickedMetric(form.values.metricName);
  const labelNames = Object.keys(metric?.labels ?? {});
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        Label filters
      </Text>
      <Text size="xs" c="dimmed">
        Only the series whose label has one of the values picked count; none: every series.
      </Text>
      <EditableList<LabelFilter>
        value={form.values.labels}
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
  );
}
