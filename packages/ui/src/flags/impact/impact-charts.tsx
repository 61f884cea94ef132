import { Code, Group, Loader, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { IconChartLine } from "@tabler/icons-react";
import { useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import type { Verdict } from "../../auth/session";
import { ConfirmButton } from "../../components/confirm-button";
import { ErrorPanel } from "../../components/error-panel";
import { GuardedButton } from "../../components/guarded-button";
import { notifyDone } from "../../components/notify";
import { useModalTarget } from "../../components/use-modal-target";
import { useRemove } from "../../components/use-remove";
import { MetricChart } from "../../impact-metrics/metric-chart";
import { describeFilters, TIME_RANGES } from "../../impact-metrics/metric-draft";
import {
  type FlagChart,
  type FlagChartInput,
  removeFlagChart,
  saveFlagChart,
  useFlagCharts,
} from "../../impact-metrics/queries";
import { queryKeys } from "../../query-keys";
import { useFlagCan } from "../permissions";
import type { Flag } from "../queries";
import { chartTitle } from "./chart-draft";
import { ChartModal } from "./chart-modal";

/** How often a chart asks for its metric again while it is shown. */
export const CHART_REFRESH_MS = 30_000;

/**
 * The impact metric charts put on a flag: what its applications count and measure around it
 * (purchases, errors, latency), each over its range and asked again every 30 seconds. Those who
 * may change the flag add, edit and remove them.
 */
export function ImpactCharts({ flag }: { flag: Flag }) {
  const place = { projectId: flag.project, featureName: flag.name };
  const key = queryKeys.flags.impactCharts(flag.project, flag.name);
  // The service keeps an archived flag's charts but answers for active flags only.
  const charts = useFlagCharts(place, !flag.archived);
  const verdict = useFlagCan(flag)("UPDATE_FEATURE");
  const editor = useModalTarget<FlagChart>();
  const client = useQueryClient();
  const editing = editor.target === "new" ? undefined : editor.target;

  const save = async (input: FlagChartInput) => {
    const saved = await saveFlagChart(place, input);
    await client.invalidateQueries({ queryKey: key });
    notifyDone(`Chart ${chartTitle(saved)} ${input.id ? "saved" : "added"}.`);
  };
  const remove = useRemove(
    key,
    (chart: FlagChart) => removeFlagChart(place, chart.id),
    (chart) => `Chart ${chartTitle(chart)} removed.`,
  );

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Text size="sm" c="dimmed">
          What the flag's applications count and measure around it, as their SDKs report it. Each chart is
          read again every {CHART_REFRESH_MS / 1000} seconds.
        </Text>
        <GuardedButton
          verdict={verdict}
          leftSection={<IconChartLine size={16} />}
          onClick={() => editor.open("new")}
          style={{ flexShrink: 0 }}
        >
          Add chart
        </GuardedButton>
      </Group>
      {flag.archived && (
        <Text c="dimmed">This flag is archived: revive it to see and change its impact metric charts.</Text>
      )}
      {!flag.archived && charts.isPending && <Loader aria-label="Loading the flag's charts" />}
      {charts.isError && <ErrorPanel error={charts.error} />}
      {charts.data?.configs.length === 0 && <NoCharts flagName={flag.name} />}
      {charts.data && charts.data.configs.length > 0 && (
        <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
          {charts.data.configs.map((chart) => (
            <ChartCard
              key={chart.id}
              chart={chart}
              verdict={verdict}
              onEdit={() => editor.open(chart)}
              onRemove={() => remove(chart)}
            />
          ))}
        </SimpleGrid>
      )}
      <ChartModal
        opened={editor.opened}
        formKey={editor.key}
        title={editing ? `Edit chart ${chartTitle(editing)}` : `Add a chart to ${flag.name}`}
        chart={editing}
        onSave={save}
        onClose={editor.close}
      />
    </Stack>
  );
}

/** One chart: its title, range and filters, its buttons, and the metric drawn. */
function ChartCard({
  chart,
  verdict,
  onEdit,
  onRemove,
}: {
  chart: FlagChart;
  verdict: Verdict;
  onEdit: () => void;
  onRemove: () => Promise<unknown>;
}) {
  const titleId = useId();
  const title = chartTitle(chart);
  const filters = describeFilters(chart.labelSelectors);
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={titleId}>
      <Stack gap="xs">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <Stack gap={2}>
            <Title order={3} size="h5" id={titleId}>
              {title}
            </Title>
            <Text size="xs" c="dimmed">
              {TIME_RANGES[chart.timeRange]}; {filters || "every series"}
            </Text>
          </Stack>
          <Group gap="xs" wrap="nowrap">
            <GuardedButton
              verdict={verdict}
              variant="subtle"
              size="compact-sm"
              aria-label={`Edit chart ${title}`}
              onClick={onEdit}
            >
              Edit
            </GuardedButton>
            <ConfirmButton
              verdict={verdict}
              aria-label={`Remove chart ${title}`}
              title={`Remove the chart ${title}?`}
              message="The chart is taken off this flag; what SDKs report goes on being recorded."
              confirmLabel="Remove chart"
              onConfirm={onRemove}
            >
              Remove
            </ConfirmButton>
          </Group>
        </Group>
        <MetricChart
          metric={chart}
          yAxisMin={chart.yAxisMin}
          refetchInterval={CHART_REFRESH_MS}
          height={200}
        />
      </Stack>
    </Paper>
  );
}

/** Why there is nothing to see yet, and how an application reports what a chart draws. */
function NoCharts({ flagName }: { flagName: string }) {
  const label = flagName.replace(/[^a-zA-Z0-9_]/g, "_");
  return (
    <Paper withBorder p="md">
      <Stack gap="xs">
        <Text fw={600}>No impact metrics are charted for this flag yet.</Text>
        <Text size="sm">
          An application reports impact metrics through its SDK, with its usage: it defines a counter once,
          with <Code>unleash.impactMetrics.defineCounter("purchases", "Purchases made")</Code>, and counts
          with <Code>unleash.impactMetrics.incrementCounter("purchases")</Code>. The service lists it as{" "}
          <Code>unleash_counter_&lt;name&gt;</Code> (here <Code>unleash_counter_purchases</Code>), ready to
          chart with "Add chart". Gauges (<Code>defineGauge</Code>) and histograms (
          <Code>defineHistogram</Code>) are reported the same way.
        </Text>
        <Text size="sm">
          Counting with{" "}
          <Code>{`unleash.impactMetrics.incrementCounter("purchases", 1, { flagNames: ["${flagName}"], context })`}</Code>{" "}
          labels each count with what this flag gave (label <Code>{label}</Code>: enabled, disabled or the
          variant's name), so a chart filtered on it compares those who had the flag on with those who had it
          off.
        </Text>
      </Stack>
    </Paper>
  );
}
