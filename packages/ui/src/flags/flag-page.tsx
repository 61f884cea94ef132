import { Anchor, Badge, Box, Loader, Paper, SimpleGrid, Stack, Tabs, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { DraftBanner } from "../change-requests/draft-banner";
import { ErrorPanel } from "../components/error-panel";
import { RelativeTime } from "../components/relative-time";
import { EventList } from "../events/event-list";
import { EnvironmentPanel } from "./environments/environment-panel";
import { FlagVariants } from "./environments/flag-variants";
import { Exposure } from "./exposure/exposure-chart";
import { FLAG_TYPES } from "./header/edit-flag-modal";
import { FlagDependencies } from "./header/flag-dependencies";
import { FlagHeader } from "./header/flag-header";
import { FlagTags } from "./header/flag-tags";
import { LifecycleStage } from "./header/lifecycle-stage";
import { FlagVersions } from "./history/versions";
import { ImpactCharts } from "./impact/impact-charts";
import { type Flag, useFlag, useProject, useStrategyDefinitions } from "./queries";

const TABS = {
  environments: "Environments",
  variants: "Variants",
  exposure: "Exposure",
  impact: "Impact",
  history: "History",
};
type Tab = keyof typeof TABS;
const isTab = (value: string | null): value is Tab => value !== null && Object.hasOwn(TABS, value);

/**
 * A flag: what it is, where it is on and for whom, its variants, how often it is used, what its
 * applications measure around it, what happened to it.
 */
export default function FlagPage() {
  const { projectId = "", featureName = "" } = useParams();
  const flag = useFlag({ projectId, featureName });
  if (flag.isPending) return <Loader aria-label="Loading the flag" />;
  if (flag.isError) return <ErrorPanel error={flag.error} />;
  return <FlagScreen flag={flag.data} />;
}

function FlagScreen({ flag }: { flag: Flag }) {
  const project = useProject(flag.project);
  const definitions = useStrategyDefinitions();
  // The tab is in the address, so a reload or a shared link opens the same one.
  const [search, setSearch] = useSearchParams();
  const asked = search.get("tab");
  const tab: Tab = isTab(asked) ? asked : "environments";

  return (
    <Stack gap="md">
      <FlagHeader flag={flag} />
      <DraftBanner projectId={flag.project} />
      <FlagDetails flag={flag} projectName={project.data?.name} />
      <Tabs
        value={tab}
        onChange={(next) =>
          isTab(next) && setSearch(next === "environments" ? {} : { tab: next }, { replace: true })
        }
        keepMounted={false}
      >
        <Tabs.List>
          {Object.entries(TABS).map(([value, label]) => (
            <Tabs.Tab key={value} value={value}>
              {label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="environments" pt="md">
          <Stack gap="md">
            {flag.environments.length === 0 && (
              <Text c="dimmed">The project has no environments enabled, so the flag is off everywhere.</Text>
            )}
            {flag.environments.map((environment) => (
              <EnvironmentPanel
                key={environment.name}
                flag={flag}
                environment={environment}
                definitions={definitions.data?.strategies ?? []}
                defaultStickiness={project.data?.defaultStickiness ?? "default"}
              />
            ))}
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="variants" pt="md">
          <FlagVariants flag={flag} />
        </Tabs.Panel>
        <Tabs.Panel value="exposure" pt="md">
          <Exposure
            featureName={flag.name}
            environments={flag.environments.map((environment) => environment.name)}
          />
        </Tabs.Panel>
        <Tabs.Panel value="impact" pt="md">
          <ImpactCharts flag={flag} />
        </Tabs.Panel>
        <Tabs.Panel value="history" pt="md">
          <Stack gap="lg">
            <FlagVersions flag={flag} />
            <Stack gap="xs">
              <Title order={3} size="h4">
                Events
              </Title>
              <EventList filter={{ feature: flag.name }} />
            </Stack>
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function FlagDetails({ flag, projectName }: { flag: Flag; projectName: string | undefined }) {
  const typeLabel = Object.entries(FLAG_TYPES).find(([type]) => type === flag.type)?.[1];
  return (
    <Paper withBorder p="md">
      <SimpleGrid component="dl" cols={{ base: 1, sm: 2, lg: 4 }} spacing="md" verticalSpacing="sm" m={0}>
        <Detail term="Project">
          <Anchor component={Link} to={`/projects/${encodeURIComponent(flag.project)}`}>
            {projectName ?? flag.project}
          </Anchor>
        </Detail>
        <Detail term="Type">
          <Badge variant="light" title={typeLabel}>
            {flag.type}
          </Badge>
        </Detail>
        <Detail term="Created">
          <RelativeTime value={flag.createdAt} /> by {flag.createdBy.name}
        </Detail>
        <Detail term="Last seen">
          <RelativeTime value={flag.lastSeenAt} />
        </Detail>
        <Detail term="Lifecycle">
          <LifecycleStage flag={flag} />
        </Detail>
        <Detail term="Tags">
          <FlagTags flag={flag} />
        </Detail>
        <Detail term="Dependencies">
          <FlagDependencies flag={flag} />
        </Detail>
      </SimpleGrid>
    </Paper>
  );
}

function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <Text component="dt" size="xs" c="dimmed" tt="uppercase" fw={600}>
        {term}
      </Text>
      <Box component="dd" m={0} mt={4} fz="sm">
        {children}
      </Box>
    </div>
  );
}
