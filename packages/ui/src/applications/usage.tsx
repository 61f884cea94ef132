import { Anchor, Badge, Group, Stack, Text } from "@mantine/core";
import { Link } from "react-router";
import type { paths } from "../api/client";

type Listed =
  paths["/api/admin/metrics/applications"]["get"]["responses"][200]["content"]["application/json"]["applications"][number];

/** The projects an application's tokens reach and the environments it runs in; `*` is every project. */
export function Usage({ usage }: Pick<Listed, "usage">) {
  if (usage.length === 0) return <Text c="dimmed">—</Text>;
  return (
    <Stack gap={4}>
      {usage.map(({ project, environments }) => (
        <Group key={project} gap={4}>
          {project === "*" ? (
            <Text size="sm">All projects</Text>
          ) : (
            <Anchor component={Link} to={`/projects/${encodeURIComponent(project)}`} size="sm">
              {project}
            </Anchor>
          )}
          {environments.map((environment) => (
            <Badge key={environment} variant="outline" color="gray" tt="none">
              {environment}
            </Badge>
          ))}
        </Group>
      ))}
    </Stack>
  );
}
