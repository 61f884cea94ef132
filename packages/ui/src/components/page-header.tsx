import { Group, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";

/** A screen's title, what it is for, and its main actions on the right. */
export function PageHeader({
  title,
  description,
  actions,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-start" mb="md">
      <Stack gap={4}>
        <Title order={2}>{title}</Title>
        {description && <Text c="dimmed">{description}</Text>}
      </Stack>
      {actions && <Group>{actions}</Group>}
    </Group>
  );
}
