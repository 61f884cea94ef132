import { Anchor, Badge, Group, Table, Text } from "@mantine/core";
import { Link } from "react-router";
import { RelativeTime } from "../components/relative-time";
import { projectPath } from "../projects/paths";
import type { State } from "./queries";
import { changeRequestPath } from "./queries";
import { STATE_COLORS } from "./rules";

/** What a listing shows of a request, whether it came whole or as a search's summary. */
export interface ListedRequest {
  id: number;
  title: string;
  project: string;
  environment: string;
  state: State;
  createdBy: { username: string | null };
  createdAt: string;
  /** The flags it changes. */
  flags: string[];
  approvals: number;
  minApprovals: number;
}

/** Change requests in a table, each title a link to its page. */
export function ChangeRequestTable({
  requests,
  label,
  showProject = false,
}: {
  requests: ListedRequest[];
  label: string;
  showProject?: boolean;
}) {
  return (
    <Table aria-label={label} verticalSpacing="xs" highlightOnHover>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Title</Table.Th>
          {showProject && <Table.Th>Project</Table.Th>}
          <Table.Th>Environment</Table.Th>
          <Table.Th>State</Table.Th>
          <Table.Th>Approvals</Table.Th>
          <Table.Th>Author</Table.Th>
          <Table.Th>Created</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {requests.map((request) => (
          <Table.Tr key={request.id}>
            <Table.Td>
              <Anchor component={Link} to={changeRequestPath(request.project, request.id)}>
                {request.title}
              </Anchor>
              {request.flags.length > 0 && (
                <Text size="xs" c="dimmed">
                  {request.flags.join(", ")}
                </Text>
              )}
            </Table.Td>
            {showProject && (
              <Table.Td>
                <Anchor component={Link} to={projectPath(request.project)} size="sm">
                  {request.project}
                </Anchor>
              </Table.Td>
            )}
            <Table.Td>{request.environment}</Table.Td>
            <Table.Td>
              <Group gap={4}>
                <Badge color={STATE_COLORS[request.state]} variant="light" tt="none">
                  {request.state}
                </Badge>
              </Group>
            </Table.Td>
            <Table.Td>
              {request.approvals} of {request.minApprovals}
            </Table.Td>
            <Table.Td>{request.createdBy.username ?? "a deleted user"}</Table.Td>
            <Table.Td style={{ whiteSpace: "nowrap" }}>
              <RelativeTime value={request.createdAt} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
