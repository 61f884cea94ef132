import { Anchor, Modal, Stack, Table, Text } from "@mantine/core";
import { Link } from "react-router";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { GuardedButton } from "../components/guarded-button";
import { PageHeader } from "../components/page-header";
import { plural } from "../components/plural";
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../components/row-actions";
import { useModalTarget } from "../components/use-modal-target";
import { useRemove } from "../components/use-remove";
import { useSegments } from "../flags/queries";
import { queryKeys } from "../query-keys";
import { type Segment, SegmentForm } from "./segment-form";

export default function SegmentsPage() {
  const segments = useSegments();
  const can = useCan();
  const editor = useModalTarget<Segment>();

  const remove = useRemove(
    queryKeys.segments.list(),
    (segment: Segment) =>
      unwrap(api.DELETE("/api/admin/segments/{id}", { params: { path: { id: segment.id } } })),
    (segment) => `Segment ${segment.name} deleted.`,
  );

  return (
    <>
      <PageHeader
        title="Segments"
        description="Named sets of constraints that strategies of many flags can share: change the segment and every one of them follows."
        actions={
          <GuardedButton verdict={can("CREATE_SEGMENT")} onClick={() => editor.open("new")}>
            New segment
          </GuardedButton>
        }
      />
      {segments.isError && <ErrorPanel error={segments.error} />}
      <Table striped aria-label="Segments" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Project</Table.Th>
            <Table.Th>Constraints</Table.Th>
            <Table.Th>Used by</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {segments.data?.segments.map((segment) => (
            <Table.Tr key={segment.id}>
              <Table.Td>
                <Stack gap={0}>
                  <Text fw={600}>{segment.name}</Text>
                  {segment.description && (
                    <Text size="xs" c="dimmed">
                      {segment.description}
                    </Text>
                  )}
                </Stack>
              </Table.Td>
              <Table.Td>
                {segment.project ? (
                  <Anchor component={Link} to={`/projects/${encodeURIComponent(segment.project)}`}>
                    {segment.project}
                  </Anchor>
                ) : (
                  "All projects"
                )}
              </Table.Td>
              <Table.Td>{segment.constraints.length}</Table.Td>
              <Table.Td>
                {segment.usedInFeatures === 0
                  ? "Unused"
                  : `${plural(segment.usedInFeatures, "flag")} in ${plural(segment.usedInProjects, "project")}`}
              </Table.Td>
              <Table.Td>
                <RowActions>
                  <EditButton
                    name={segment.name}
                    verdict={can("UPDATE_SEGMENT")}
                    onClick={() => editor.open(segment)}
                  />
                  <DeleteButton
                    name={segment.name}
                    what="segment"
                    verdict={can("DELETE_SEGMENT")}
                    message="The service refuses while a strategy uses it: take it off those strategies first."
                    onConfirm={() => remove(segment)}
                  />
                </RowActions>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {segments.data?.segments.length === 0 && <Text c="dimmed">No segments yet.</Text>}
      <Modal
        opened={editor.opened}
        onClose={editor.close}
        size="xl"
        closeOnClickOutside={false}
        title={editor.target === "new" ? "New segment" : `Edit segment ${editor.target.name}`}
      >
        <SegmentForm
          key={editor.key}
          segment={editor.target === "new" ? undefined : editor.target}
          onDone={editor.close}
        />
      </Modal>
    </>
  );
}
