import { Badge, Code, List, Loader, Stack, Table, Text } from "@mantine/core";
import { ErrorPanel } from "../components/error-panel";
import { plural } from "../components/plural";
import { RelativeTime } from "../components/relative-time";
import { type Delivery, useDeliveries } from "./queries";

const STATE = {
  success: { label: "Delivered", color: "green" },
  successWithErrors: { label: "Partly delivered", color: "yellow" },
  failed: { label: "Failed", color: "red" },
} as const;

function Attempts({ attempts }: { attempts: Delivery["attempts"] }) {
  if (attempts.length === 0) return <Text size="sm">None</Text>;
  return (
    <List size="sm" spacing={2}>
      {attempts.map((attempt) => (
        <List.Item key={`${attempt.attempt}-${attempt.target ?? ""}-${attempt.at}`}>
          #{attempt.attempt}
          {attempt.target && ` to ${attempt.target}`}:{" "}
          {attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : (attempt.error ?? "no answer")}
          {attempt.statusCode !== null && attempt.error && ` (${attempt.error})`}
          {attempt.response && (
            <Code block mah={80} style={{ overflow: "auto" }}>
              {attempt.response.slice(0, 500)}
            </Code>
          )}
        </List.Item>
      ))}
    </List>
  );
}

/** What an integration delivered, newest first, with each attempt: asked again every few seconds. */
export function DeliveryLog({ addonId, name }: { addonId: number; name: string }) {
  const deliveries = useDeliveries(addonId);
  if (deliveries.isPending) return <Loader aria-label="Loading deliveries" />;
  if (deliveries.isError) return <ErrorPanel error={deliveries.error} />;
  const rows = deliveries.data.integrationEvents;
  if (rows.length === 0)
    return (
      <Text c="dimmed" aria-live="polite">
        Nothing delivered yet: events appear here once one this integration sends has happened.
      </Text>
    );
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed" aria-live="polite">
        The last {plural(rows.length, "delivery", "deliveries")}, newest first.
      </Text>
      <Table aria-label={`Deliveries of ${name}`} verticalSpacing="xs" striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>When</Table.Th>
            <Table.Th>Event</Table.Th>
            <Table.Th>State</Table.Th>
            <Table.Th>Attempts</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((delivery) => (
            <Table.Tr key={delivery.id}>
              <Table.Td>
                <RelativeTime value={delivery.createdAt} />
              </Table.Td>
              <Table.Td>
                <Stack gap={0}>
                  <Text size="sm" fw={600}>
                    {delivery.event.type}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {[
                      delivery.event.featureName,
                      delivery.event.project && `project ${delivery.event.project}`,
                      delivery.event.environment,
                    ]
                      .filter(Boolean)
                      .join(" · ")}
                  </Text>
                </Stack>
              </Table.Td>
              <Table.Td>
                <Stack gap={2}>
                  <Badge color={STATE[delivery.state].color} variant="light">
                    {STATE[delivery.state].label}
                  </Badge>
                  <Text size="xs">{delivery.stateDetails}</Text>
                </Stack>
              </Table.Td>
              <Table.Td>
                <Attempts attempts={delivery.attempts} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
