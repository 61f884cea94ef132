import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  ColorInput,
  ColorSwatch,
  Group,
  List,
  Loader,
  Modal,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useParams } from "react-router";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { GuardedButton } from "../components/guarded-button";
import { notifyDone } from "../components/notify";
import { PageHeader } from "../components/page-header";
import { plural } from "../components/plural";
import { RelativeTime } from "../components/relative-time";
import { queryKeys } from "../query-keys";
import { Usage } from "./usage";

const fetchApplication = (appName: string) =>
  unwrap(api.GET("/api/admin/metrics/applications/{appName}", { params: { path: { appName } } }));

const fetchOverview = (appName: string) =>
  unwrap(api.GET("/api/admin/metrics/applications/{appName}/overview", { params: { path: { appName } } }));

type Application = Awaited<ReturnType<typeof fetchApplication>>;
type Overview = Awaited<ReturnType<typeof fetchOverview>>;

/** One application: how it is shown, where it runs, its instances and the flags it asked for. */
export default function ApplicationPage() {
  const appName = useParams().appName ?? "";
  const can = useCan();
  const [editing, { open, close }] = useDisclosure();
  const application = useQuery({
    queryKey: queryKeys.applications.detail(appName),
    queryFn: () => fetchApplication(appName),
  });
  const overview = useQuery({
    queryKey: queryKeys.applications.overview(appName),
    queryFn: () => fetchOverview(appName),
  });

  if (application.isPending) return <Loader aria-label="Loading application" />;
  if (application.isError) return <ErrorPanel error={application.error} />;
  const app = application.data;

  return (
    <>
      <PageHeader
        title={
          <Group gap="xs">
            {app.color && <ColorSwatch color={app.color} size={18} aria-hidden />}
            {app.appName}
          </Group>
        }
        description={
          <>
            {app.description || "No description."}
            {app.url && (
              <>
                {" "}
                <Anchor href={app.url} target="_blank" rel="noreferrer">
                  {app.url}
                </Anchor>
              </>
            )}
          </>
        }
        actions={
          <GuardedButton verdict={can("UPDATE_APPLICATION")} onClick={open}>
            Edit application
          </GuardedButton>
        }
      />
      <Stack gap="xl">
        <Group gap="xl">
          <Stack gap={2}>
            <Text size="xs" c="dimmed">
              Known since
            </Text>
            <RelativeTime value={app.createdAt} />
          </Stack>
          <Stack gap={2}>
            <Text size="xs" c="dimmed">
              Projects and environments
            </Text>
            <Usage usage={app.usage} />
          </Stack>
          {app.strategies.length > 0 && (
            <Stack gap={2}>
              <Text size="xs" c="dimmed">
                Strategies it implements
              </Text>
              <Group gap={4}>
                {app.strategies.map((strategy) => (
                  <Badge key={strategy} variant="light" color="gray" tt="none">
                    {strategy}
                  </Badge>
                ))}
              </Group>
            </Stack>
          )}
        </Group>

        <section aria-labelledby="environments-heading">
          <Title order={3} id="environments-heading" mb="sm">
            Environments in the last day
          </Title>
          {overview.isError && <ErrorPanel error={overview.error} />}
          {overview.isPending && <Loader size="sm" aria-label="Loading environments" />}
          {overview.data && <Environments overview={overview.data} />}
        </section>

        <section aria-labelledby="instances-heading">
          <Title order={3} id="instances-heading" mb="sm">
            Instances
          </Title>
          <Instances instances={app.instances} />
        </section>

        <section aria-labelledby="flags-heading">
          <Title order={3} id="flags-heading" mb="sm">
            Flags it used in the last day
          </Title>
          <SeenFlags flags={app.seenToggles} />
        </section>
      </Stack>
      <Modal opened={editing} onClose={close} title={`Edit ${app.appName}`}>
        <EditApplicationForm application={app} onDone={close} />
      </Modal>
    </>
  );
}

function Environments({ overview }: { overview: Overview }) {
  const missingStrategies = overview.issues.missingStrategies;
  return (
    <Stack>
      {missingStrategies.length > 0 && (
        <Alert color="orange" title="Strategies the application does not implement">
          Flags it uses have strategies its SDK did not announce: {missingStrategies.join(", ")}. Those
          strategies evaluate to off in this application.
        </Alert>
      )}
      {overview.environments.length === 0 ? (
        <Text c="dimmed">No instance was heard from and no flag was used in the last day.</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {overview.environments.map((environment) => (
            <Card
              key={environment.name}
              withBorder
              component="article"
              aria-label={`Environment ${environment.name}`}
            >
              <Group justify="space-between" mb="xs">
                <Text fw={600}>{environment.name}</Text>
                <Text size="sm" c="dimmed">
                  last seen <RelativeTime value={environment.lastSeen} empty="never" />
                </Text>
              </Group>
              <Text size="sm">{plural(environment.instanceCount, "instance")}</Text>
              {environment.sdks.length > 0 && (
                <Text size="sm" c="dimmed">
                  {environment.sdks.join(", ")}
                </Text>
              )}
              {environment.issues.outdatedSdks.length > 0 && (
                <Text size="sm" c="orange.8" mt="xs">
                  Outdated SDK: {environment.issues.outdatedSdks.join(", ")}
                </Text>
              )}
              {environment.issues.missingFeatures.length > 0 && (
                <Stack gap={0} mt="xs">
                  <Text size="sm" c="orange.8">
                    Asks for flags that do not exist:
                  </Text>
                  <List size="sm">
                    {environment.issues.missingFeatures.map((name) => (
                      <List.Item key={name}>{name}</List.Item>
                    ))}
                  </List>
                </Stack>
              )}
            </Card>
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}

function Instances({ instances }: { instances: Application["instances"] }) {
  if (instances.length === 0) return <Text c="dimmed">No instance has been heard from.</Text>;
  return (
    <Table aria-label="Instances" striped verticalSpacing="xs">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Instance</Table.Th>
          <Table.Th>Host / IP</Table.Th>
          <Table.Th>SDK</Table.Th>
          <Table.Th>Environment</Table.Th>
          <Table.Th>Last seen</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {instances.map((instance) => (
          <Table.Tr key={`${instance.environment}/${instance.instanceId}`}>
            <Table.Td ff="monospace">{instance.instanceId}</Table.Td>
            <Table.Td>{instance.clientIp ?? "—"}</Table.Td>
            <Table.Td>
              <Group gap={4}>
                {instance.sdkVersion ?? "Unknown"}
                {instance.sdkType && (
                  <Badge variant="light" color="gray" tt="none">
                    {instance.sdkType}
                  </Badge>
                )}
              </Group>
            </Table.Td>
            <Table.Td>{instance.environment}</Table.Td>
            <Table.Td style={{ whiteSpace: "nowrap" }}>
              <RelativeTime value={instance.lastSeen} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function SeenFlags({ flags }: { flags: Application["seenToggles"] }) {
  if (flags.length === 0) return <Text c="dimmed">It has not reported using any flag.</Text>;
  return (
    <List aria-label="Flags it used">
      {flags.map((flag) => (
        <List.Item key={flag.name}>
          {flag.project ? (
            <Anchor
              component={Link}
              to={`/projects/${encodeURIComponent(flag.project)}/features/${encodeURIComponent(flag.name)}`}
            >
              {flag.name}
            </Anchor>
          ) : (
            flag.name
          )}
          {flag.notFound && (
            <Badge ml="xs" color="orange" variant="light" tt="none">
              no such flag
            </Badge>
          )}
        </List.Item>
      ))}
    </List>
  );
}

function EditApplicationForm({ application, onDone }: { application: Application; onDone: () => void }) {
  const client = useQueryClient();
  const [description, setDescription] = useState(application.description);
  const [url, setUrl] = useState(application.url);
  const [color, setColor] = useState(application.color);
  const [icon, setIcon] = useState(application.icon);
  const { appName } = application;
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/metrics/applications/{appName}", {
          params: { path: { appName } },
          body: { description, url, color, icon },
        }),
      ),
    onSuccess: async () => {
      await Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.applications.detail(appName) }),
        client.invalidateQueries({ queryKey: queryKeys.applications.list() }),
      ]);
      notifyDone(`Saved ${appName}.`);
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit}>
      <Stack>
        <TextInput
          label="Description"
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
        <TextInput
          label="URL"
          description="Where to find the application or its code."
          type="url"
          value={url}
          onChange={(event) => setUrl(event.currentTarget.value)}
        />
        <ColorInput label="Colour" value={color} onChange={setColor} />
        <TextInput
          label="Icon"
          description="The name of an icon, as other tools showing applications expect it."
          value={icon}
          onChange={(event) => setIcon(event.currentTarget.value)}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
