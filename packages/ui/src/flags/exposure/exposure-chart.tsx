import "@mantine/charts/styles.css";
import { BarChart } from "@mantine/charts";
import { Loader, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { ErrorPanel } from "../../components/error-panel";
import { plural } from "../../components/plural";
import { queryKeys } from "../../query-keys";

const HOURS = 48;
const count = new Intl.NumberFormat();

const fetchExposure = (name: string) =>
  unwrap(
    api.GET("/api/admin/client-metrics/features/{name}/raw", {
      params: { path: { name }, query: { hoursBack: HOURS } },
    }),
  );

type Report = Awaited<ReturnType<typeof fetchExposure>>["data"][number];

/**
 * How often SDKs evaluated the flag in the last 48 hours, hour by hour, in each environment
 * that reported it: a chart of yes and no answers, and the same in a sentence.
 */
export function Exposure({ featureName, environments }: { featureName: string; environments: string[] }) {
  const metrics = useQuery({
    queryKey: queryKeys.flags.metrics(featureName, HOURS),
    queryFn: () => fetchExposure(featureName),
    refetchInterval: 60_000,
  });
  if (metrics.isPending) return <Loader aria-label="Loading exposure" />;
  if (metrics.isError) return <ErrorPanel error={metrics.error} />;

  const reported = byEnvironment(metrics.data.data);
  const silent = environments.filter((environment) => !reported.has(environment));
  return (
    <Stack gap="md">
      {[...reported].map(([environment, hours]) => (
        <EnvironmentExposure key={environment} environment={environment} hours={hours} />
      ))}
      {silent.length > 0 && (
        <Text c="dimmed" size="sm">
          No SDK reported evaluating this flag in the last {HOURS} hours in {silent.join(", ")}.
        </Text>
      )}
    </Stack>
  );
}

interface Hour {
  hour: string;
  yes: number;
  no: number;
}

/** Every application's counts added up per environment and hour, hours in order. */
function byEnvironment(reports: Report[]) {
  const environments = new Map<string, { hours: Map<string, Hour>; applications: Set<string> }>();
  for (const report of reports) {
    let entry = environments.get(report.environment);
    if (!entry) {
      entry = { hours: new Map(), applications: new Set() };
      environments.set(report.environment, entry);
    }
    entry.applications.add(report.appName);
    const hour = entry.hours.get(report.timestamp) ?? { hour: report.timestamp, yes: 0, no: 0 };
    hour.yes += report.yes;
    hour.no += report.no;
    entry.hours.set(report.timestamp, hour);
  }
  return new Map(
    [...environments].map(([environment, { hours, applications }]) => [
      environment,
      {
        applications: [...applications].sort(),
        hours: [...hours.values()].sort((a, b) => a.hour.localeCompare(b.hour)),
      },
    ]),
  );
}

const hourLabel = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { weekday: "short", hour: "2-digit", minute: "2-digit" });

function EnvironmentExposure({
  environment,
  hours,
}: {
  environment: string;
  hours: { applications: string[]; hours: Hour[] };
}) {
  const yes = hours.hours.reduce((sum, hour) => sum + hour.yes, 0);
  const no = hours.hours.reduce((sum, hour) => sum + hour.no, 0);
  const total = yes + no;
  const share = total === 0 ? 0 : Math.round((yes / total) * 100);
  const apps = hours.applications;
  const summary =
    total === 0
      ? `No evaluations in ${environment} in the last ${HOURS} hours.`
      : `${plural(total, "evaluation")} in ${environment} in the last ${HOURS} hours: ` +
        `${count.format(yes)} yes (${share}%), ${count.format(no)} no, ` +
        `from ${apps.length === 1 ? "the application" : `${apps.length} applications:`} ${apps.join(", ")}.`;
  const data = hours.hours.map((hour) => ({ ...hour, hour: hourLabel(hour.hour) }));

  return (
    <Paper withBorder p="md" component="section" aria-labelledby={`exposure-${environment}`}>
      <Stack gap="sm">
        <Title order={3} id={`exposure-${environment}`}>
          {environment}
        </Title>
        <Text size="sm">{summary}</Text>
        {/* The sentence above says what the chart shows. */}
        <div aria-hidden>
          <BarChart
            h={220}
            data={data}
            dataKey="hour"
            type="stacked"
            withLegend
            tickLine="y"
            series={[
              { name: "yes", label: "Yes", color: "teal.6" },
              { name: "no", label: "No", color: "gray.5" },
            ]}
          />
        </div>
      </Stack>
    </Paper>
  );
}
