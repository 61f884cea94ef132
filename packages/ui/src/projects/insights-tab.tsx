import "@mantine/charts/styles.css";
import { BarChart, DonutChart } from "@mantine/charts";
import { Anchor, Group, List, Loader, Paper, Progress, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import { ErrorPanel } from "../components/error-panel";
import { plural } from "../components/plural";
import { healthColor } from "./health";
import {
  flagStates,
  type HealthReport,
  type Insights,
  insightFigures,
  useHealthReport,
  useInsights,
} from "./insights";
import { flagPath } from "./paths";

/** The 20 flags that took longest to reach production are charted; the rest are in the average. */
const SLOWEST = 20;

function Figures({ insights }: { insights: Insights }) {
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
      {insightFigures(insights).map((figure) => {
        const id = `figure-${figure.label.replaceAll(" ", "-").toLowerCase()}`;
        return (
          <Paper key={figure.label} withBorder p="md" role="group" aria-labelledby={id}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={700} id={id}>
              {figure.label}
            </Text>
            <Text size="xl" fw={700}>
              {figure.value}
            </Text>
            {(figure.label === "Health" || figure.label === "Technical debt") && (
              <Progress
                my={4}
                aria-hidden
                value={figure.label === "Health" ? insights.health.rating : insights.technicalDebt.rating}
                color={
                  figure.label === "Health"
                    ? healthColor(insights.health.rating)
                    : healthColor(100 - insights.technicalDebt.rating)
                }
              />
            )}
            <Text size="sm" c="dimmed">
              {figure.detail}
            </Text>
          </Paper>
        );
      })}
    </SimpleGrid>
  );
}

/** A chart with its title and a sentence saying what it shows (the chart itself is hidden from screen readers). */
function ChartCard({
  title,
  summary,
  children,
}: {
  title: string;
  summary: string;
  children: React.ReactNode;
}) {
  const id = `chart-${title.replaceAll(" ", "-").toLowerCase()}`;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={id}>
      <Stack gap="sm">
        <Title order={4} id={id}>
          {title}
        </Title>
        <Text size="sm">{summary}</Text>
        <div aria-hidden>{children}</div>
      </Stack>
    </Paper>
  );
}

function Charts({ insights }: { insights: Insights }) {
  const states = flagStates(insights.health);
  const total = states.reduce((sum, state) => sum + state.value, 0);
  const windows = [
    {
      window: "30 days before",
      created: insights.stats.createdPastWindow,
      archived: insights.stats.archivedPastWindow,
    },
    {
      window: "Last 30 days",
      created: insights.stats.createdCurrentWindow,
      archived: insights.stats.archivedCurrentWindow,
    },
  ];
  const slowest = [...insights.leadTime.features]
    .sort((a, b) => b.timeToProduction - a.timeToProduction)
    .slice(0, SLOWEST);
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <ChartCard
        title="Flags by state"
        summary={
          total === 0
            ? "No active flags."
            : states.map((state) => `${state.value} ${state.name.toLowerCase()}`).join(", ")
        }
      >
        <Group justify="center">
          <DonutChart
            data={states}
            withLabels
            withLabelsLine
            chartLabel={plural(total, "flag")}
            size={180}
            thickness={28}
          />
        </Group>
      </ChartCard>
      <ChartCard
        title="Flag types"
        summary={
          insights.featureTypeCounts.length === 0
            ? "No flags."
            : insights.featureTypeCounts.map((entry) => `${entry.count} ${entry.type}`).join(", ")
        }
      >
        <BarChart
          h={200}
          data={insights.featureTypeCounts}
          dataKey="type"
          series={[{ name: "count", label: "Flags", color: "blue.6" }]}
          tickLine="y"
          yAxisProps={{ allowDecimals: false }}
        />
      </ChartCard>
      <ChartCard
        title="Flags created and archived"
        summary={`Last 30 days: ${windows[1]?.created} created, ${windows[1]?.archived} archived; the 30 days before: ${windows[0]?.created} created, ${windows[0]?.archived} archived.`}
      >
        <BarChart
          h={200}
          data={windows}
          dataKey="window"
          withLegend
          tickLine="y"
          yAxisProps={{ allowDecimals: false }}
          series={[
            { name: "created", label: "Created", color: "teal.6" },
            { name: "archived", label: "Archived", color: "gray.5" },
          ]}
        />
      </ChartCard>
      <ChartCard
        title="Time to production"
        summary={
          slowest.length === 0
            ? "No flag of this project has been enabled in a production environment yet."
            : `Whole days from creation to first enabled in production, slowest first: ${slowest
                .map((flag) => `${flag.name} ${flag.timeToProduction}`)
                .join(", ")}.`
        }
      >
        {slowest.length > 0 && (
          <BarChart
            h={Math.max(120, slowest.length * 28)}
            data={slowest}
            dataKey="name"
            orientation="vertical"
            yAxisProps={{ width: 140 }}
            xAxisProps={{ allowDecimals: false }}
            unit=" d"
            series={[{ name: "timeToProduction", label: "Days", color: "violet.6" }]}
          />
        )}
      </ChartCard>
    </SimpleGrid>
  );
}

function StaleFlags({ projectId, report }: { projectId: string; report: HealthReport }) {
  const stale = report.features.filter((flag) => flag.stale);
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="stale-flags">
      <Title order={4} id="stale-flags" mb="xs">
        Stale flags
      </Title>
      {stale.length === 0 ? (
        <Text size="sm" c="dimmed">
          No flag of this project is marked stale.
        </Text>
      ) : (
        <>
          <Text size="sm" mb="xs">
            Marked stale: clean them out of the code, then archive them.
          </Text>
          <List size="sm">
            {stale.map((flag) => (
              <List.Item key={flag.name}>
                <Anchor component={Link} to={flagPath(projectId, flag.name)}>
                  {flag.name}
                </Anchor>{" "}
                ({flag.type})
              </List.Item>
            ))}
          </List>
        </>
      )}
    </Paper>
  );
}

/** The project's health and insights: its figures, charts of its flags, and its stale flags. */
export function InsightsTab({ projectId }: { projectId: string }) {
  const insights = useInsights(projectId);
  const report = useHealthReport(projectId);
  if (insights.isPending) return <Loader aria-label="Loading insights" />;
  if (insights.isError) return <ErrorPanel error={insights.error} />;
  return (
    <Stack gap="md">
      <Figures insights={insights.data} />
      <Charts insights={insights.data} />
      {report.isError && <ErrorPanel error={report.error} />}
      {report.data && <StaleFlags projectId={projectId} report={report.data} />}
    </Stack>
  );
}
