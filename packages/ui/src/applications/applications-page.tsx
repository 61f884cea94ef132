import { Anchor, Badge, ColorSwatch, Group, Stack, Table, Text, TextInput } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { api, unwrap } from "../api/client";
import { ErrorPanel } from "../components/error-panel";
import { PageHeader } from "../components/page-header";
import { RelativeTime } from "../components/relative-time";
import { queryKeys } from "../query-keys";
import { Usage } from "./usage";

const applicationPath = (appName: string) => `/applications/${encodeURIComponent(appName)}`;

/** The applications whose SDKs registered or reported, and where they run. */
export default function ApplicationsPage() {
  const applications = useQuery({
    queryKey: queryKeys.applications.list(),
    queryFn: () => unwrap(api.GET("/api/admin/metrics/applications")),
  });
  const [search, setSearch] = useState("");
  const term = search.trim().toLowerCase();
  const shown = (applications.data?.applications ?? []).filter(
    (app) =>
      !term || app.appName.toLowerCase().includes(term) || app.description.toLowerCase().includes(term),
  );

  return (
    <>
      <PageHeader
        title="Applications"
        description="The applications whose SDKs have announced themselves or reported usage, with their running instances."
      />
      {applications.isError && <ErrorPanel error={applications.error} />}
      <Stack>
        <TextInput
          label="Search applications"
          placeholder="Name or description"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          maw={400}
        />
        <Table aria-label="Applications" striped highlightOnHover verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Application</Table.Th>
              <Table.Th>Instances</Table.Th>
              <Table.Th>SDK versions</Table.Th>
              <Table.Th>Projects and environments</Table.Th>
              <Table.Th>Last seen</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((app) => (
              <Table.Tr key={app.appName}>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap" align="flex-start">
                    {app.color && <ColorSwatch color={app.color} size={14} mt={4} aria-hidden />}
                    <Stack gap={0}>
                      <Anchor component={Link} to={applicationPath(app.appName)} fw={600}>
                        {app.appName}
                      </Anchor>
                      {app.description && (
                        <Text size="xs" c="dimmed">
                          {app.description}
                        </Text>
                      )}
                    </Stack>
                  </Group>
                </Table.Td>
                <Table.Td>{app.instanceCount}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {app.sdkVersions.length === 0 && <Text c="dimmed">—</Text>}
                    {app.sdkVersions.map((version) => (
                      <Badge key={version} variant="light" color="gray" tt="none">
                        {version}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Usage usage={app.usage} />
                </Table.Td>
                <Table.Td style={{ whiteSpace: "nowrap" }}>
                  <RelativeTime value={app.lastSeen} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {applications.isSuccess && shown.length === 0 && (
          <Text c="dimmed">
            {term
              ? "No application matches."
              : "No application has been heard from yet: one appears here when its SDK registers or sends metrics."}
          </Text>
        )}
      </Stack>
    </>
  );
}
