import { Alert, Badge, Group, Loader, Progress, Stack, Tabs, Text, Title } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link, Navigate, useParams } from "react-router";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ChangeRequestsTab } from "../change-requests/change-requests-tab";
import { DraftBanner } from "../change-requests/draft-banner";
import { ErrorPanel } from "../components/error-panel";
import { FavoriteStar } from "../components/favorite-star";
import { GuardedButton } from "../components/guarded-button";
import { notifyDone } from "../components/notify";
import { queryKeys } from "../query-keys";
import { AccessTab } from "./access-tab";
import { FlagsTab } from "./flags-tab";
import { healthColor } from "./health";
import { InsightsTab } from "./insights-tab";
import { projectPath } from "./paths";
import { type Project, useFavoriteProject, useProject } from "./queries";
import { SettingsTab } from "./settings-tab";

const TABS = [
  { value: "flags", label: "Flags" },
  { value: "insights", label: "Health and insights" },
  { value: "change-requests", label: "Change requests" },
  { value: "settings", label: "Settings" },
  { value: "access", label: "Access" },
] as const;

/** A project: its flags, its settings and who has access, each tab at a URL of its own. */
export default function ProjectPage() {
  const { projectId = "", tab = "flags" } = useParams();
  const project = useProject(projectId);

  if (!TABS.some((entry) => entry.value === tab)) return <Navigate to={projectPath(projectId)} replace />;
  if (project.isPending) return <Loader aria-label="Loading" />;
  if (project.isError) return <ErrorPanel error={project.error} />;
  const details = project.data;

  // Keyed by project: moving to another project starts its forms and filters afresh.
  return (
    <Stack gap="md" key={details.id}>
      <ProjectHeader project={details} />
      {details.archivedAt && <ArchivedNotice project={details} />}
      <DraftBanner projectId={details.id} />
      {/* Tabs are links: each has its URL, opens in a new browser tab, survives a reload. */}
      <Tabs value={tab} activateTabWithKeyboard={false} keepMounted={false}>
        <Tabs.List aria-label="Project sections">
          {TABS.map((entry) => (
            <Tabs.Tab
              key={entry.value}
              value={entry.value}
              renderRoot={(props) => <Link {...props} to={projectPath(projectId, entry.value)} />}
            >
              {entry.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="flags" pt="md">
          <FlagsTab project={details} />
        </Tabs.Panel>
        <Tabs.Panel value="insights" pt="md">
          <InsightsTab projectId={details.id} />
        </Tabs.Panel>
        <Tabs.Panel value="change-requests" pt="md">
          <ChangeRequestsTab projectId={details.id} />
        </Tabs.Panel>
        <Tabs.Panel value="settings" pt="md">
          <SettingsTab project={details} />
        </Tabs.Panel>
        <Tabs.Panel value="access" pt="md">
          <AccessTab project={details} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function ProjectHeader({ project }: { project: Project }) {
  const favorite = useFavoriteProject(project.id);
  // Shown at once; the project's own answer takes over when the change is done.
  const shownFavorite = favorite.isPending ? (favorite.variables ?? project.favorite) : project.favorite;
  return (
    <Group justify="space-between" align="flex-start">
      <Stack gap={4}>
        <Group gap="xs">
          <Title order={2}>{project.name}</Title>
          <FavoriteStar
            name={project.name}
            favorite={shownFavorite}
            onChange={(value) => favorite.mutate(value)}
          />
          <Badge variant="light">{project.mode}</Badge>
        </Group>
        <Text c="dimmed">{project.description || `Project ${project.id}`}</Text>
      </Stack>
      <Group gap="xl">
        <Stack gap={2}>
          <Text size="xs" c="dimmed" id="project-health">
            Health
          </Text>
          <Group gap="xs" wrap="nowrap">
            <Progress
              value={project.health}
              color={healthColor(project.health)}
              w={90}
              aria-labelledby="project-health"
            />
            <Text size="sm" fw={600}>
              {project.health}%
            </Text>
          </Group>
        </Stack>
        <Stack gap={2}>
          <Text size="xs" c="dimmed">
            Flags
          </Text>
          <Group gap="xs">
            <Text size="sm" fw={600}>
              {project.featureCount}
              {project.featureLimit !== null && ` of ${project.featureLimit}`}
            </Text>
            {project.staleFeatureCount > 0 && (
              <Badge size="sm" color="orange" variant="light">
                {project.staleFeatureCount} stale
              </Badge>
            )}
          </Group>
        </Stack>
      </Group>
    </Group>
  );
}

function ArchivedNotice({ project }: { project: Project }) {
  const can = useCan();
  const client = useQueryClient();
  const revive = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/projects/revive/{projectId}", { params: { path: { projectId: project.id } } }),
      ),
    onSuccess: async () => {
      await Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.projects.detail(project.id) }),
        client.invalidateQueries({ queryKey: queryKeys.projects.list() }),
      ]);
      notifyDone(`Project ${project.name} revived`);
    },
  });
  return (
    <Alert color="gray" title="This project is archived">
      <Group justify="space-between">
        <Text size="sm">Its flags cannot change and no flag can be added until it is revived.</Text>
        <GuardedButton
          verdict={can("UPDATE_PROJECT", { project: project.id })}
          loading={revive.isPending}
          onClick={() => revive.mutate()}
        >
          Revive project
        </GuardedButton>
      </Group>
    </Alert>
  );
}
