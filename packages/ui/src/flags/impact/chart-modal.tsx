import { Checkbox, Modal, Stack, TextInput } from "@mantine/core";
import { FormError } from "../../components/form-error";
import { FormActions } from "../../components/form-fields";
import { useCheckedForm } from "../../components/use-checked-form";
import { useFormSave } from "../../components/use-form-save";
import { describeMetric } from "../../impact-metrics/metric-draft";
import { LabelFilterFields, MetricFields } from "../../impact-metrics/metric-fields";
import type { FlagChart, FlagChartInput } from "../../impact-metrics/queries";
import { type ChartDraft, chartBody, chartDraftOf, chartRules } from "./chart-draft";

/**
 * Puts an impact metric chart on a flag, or changes one: the metric (from those SDKs reported,
 * or typed), the aggregation its type allows, the time range, label filters and a title.
 * `onSave` sends it; the modal closes once it is saved.
 */
export function ChartModal({
  opened,
  formKey,
  title,
  chart,
  onSave,
  onClose,
}: {
  opened: boolean;
  /** Changes at every opening, so the form starts afresh. */
  formKey: number;
  title: string;
  chart: FlagChart | undefined;
  onSave: (chart: FlagChartInput) => Promise<unknown>;
  onClose: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} size="lg" closeOnClickOutside={false}>
      <ChartForm key={formKey} title={title} chart={chart} onSave={onSave} onClose={onClose} />
    </Modal>
  );
}

function ChartForm({
  title,
  chart,
  onSave,
  onClose,
}: {
  title: string;
  chart: FlagChart | undefined;
  onSave: (chart: FlagChartInput) => Promise<unknown>;
  onClose: () => void;
}) {
  const form = useCheckedForm<ChartDraft>({ initialValues: chartDraftOf(chart), validate: chartRules });
  const { mutation: save, submit } = useFormSave(form, {
    save: (draft) => onSave(chartBody(draft, chart?.id)),
    onSaved: onClose,
  });
  const { values } = form;
  const named = values.metricName.trim() !== "";

  return (
    <form onSubmit={submit} aria-label={title}>
      <Stack gap="md">
        <MetricFields form={form} rangeDescription="How far back the chart goes" />
        <LabelFilterFields form={form} />
        <TextInput
          label="Title"
          description={
            named
              ? `Left empty: ${describeMetric({ metricName: values.metricName.trim(), aggregationMode: values.aggregationMode })}`
              : "Left empty: the metric and its aggregation"
          }
          {...form.getInputProps("title")}
        />
        <Checkbox
          label="Start the value axis at zero"
          {...form.getInputProps("fromZero", { type: "checkbox" })}
        />
        <FormError error={save.error} />
        <FormActions
          submitLabel={chart ? "Save chart" : "Add chart"}
          saving={save.isPending}
          onCancel={onClose}
        />
      </Stack>
    </form>
  );
}
