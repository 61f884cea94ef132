import { Anchor, Badge, Button, Group, Loader, Stack, Table, Text, VisuallyHidden } from "@mantine/core";
import { IconChevronDown, IconChevronRight } from "@tabler/icons-react";
import { useInfiniteQuery } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { Link } from "react-router";
import { api, unwrap } from "../api/client";
import { ErrorPanel } from "../components/error-panel";
import { plural } from "../components/plural";
import { RelativeTime } from "../components/relative-time";
import { queryKeys } from "../query-keys";
import type { EventFilter } from "./event-types";
import { JsonDiff } from "./json-diff";

const PAGE = 50;

const search = (filter: EventFilter, offset: number) =>
  unwrap(api.POST("/api/admin/events/search", { body: { ...filter, offset, limit: PAGE } }));

type LoggedEvent = Awaited<ReturnType<typeof search>>["events"][number];

const projectPath = (project: string) => `/projects/${encodeURIComponent(project)}`;

/**
 * The event log, newest first, a page at a time, narrowed by `filter`: who did what, when
 * and where, and for each event what it changed.
 */
export function EventList({ filter }: { filter: EventFilter }) {
  const events = useInfiniteQuery({
    queryKey: queryKeys.events.list(filter),
    // The offset is the id of the newest event to list (0: from the newest), so events
    // logged while someone reads do not shift the pages they load next.
    queryFn: ({ pageParam }) => search(filter, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last) => {
      const oldest = last.events.at(-1);
      return last.events.length === PAGE && oldest && oldest.id > 1 ? oldest.id - 1 : undefined;
    },
  });
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  if (events.isPending) return <Loader aria-label="Loading events" />;
  if (events.isError) return <ErrorPanel error={events.error} />;

  const listed = events.data.pages.flatMap((page) => page.events);
  const total = events.data.pages[0]?.totalEvents ?? 0;
  if (listed.length === 0) return <Text c="dimmed">No events match.</Text>;

  return (
    <Stack gap="sm">
      <Table aria-label="Events" verticalSpacing="xs" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>When</Table.Th>
            <Table.Th>Event</Table.Th>
            <Table.Th>Who</Table.Th>
            <Table.Th>Where</Table.Th>
            <Table.Th>
              <VisuallyHidden>Changes</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {listed.map((event) => {
            const expanded = open.has(event.id);
            const changesId = `event-${event.id}-changes`;
            return (
              <Fragment key={event.id}>
                <Table.Tr>
                  <Table.Td style={{ whiteSpace: "nowrap" }}>
                    <RelativeTime value={event.createdAt} />
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6}>
                      <Badge variant="light" tt="none">
                        {event.type}
                      </Badge>
                      <Text size="xs" c="dimmed">
                        #{event.id}
                      </Text>
                    </Group>
                  </Table.Td>
                  <Table.Td>{event.createdBy}</Table.Td>
                  <Table.Td>
                    <Where event={event} />
                  </Table.Td>
                  <Table.Td ta="right">
                    <Button
                      variant="subtle"
                      size="compact-sm"
                      aria-expanded={expanded}
                      aria-controls={expanded ? changesId : undefined}
                      aria-label={`Changes in ${event.type} #${event.id}`}
                      onClick={() => toggle(event.id)}
                      leftSection={expanded ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
                    >
                      Changes
                    </Button>
                  </Table.Td>
                </Table.Tr>
                {expanded && (
                  <Table.Tr id={changesId}>
                    <Table.Td colSpan={5}>
                      <JsonDiff
                        label={`Changes in ${event.type} #${event.id}`}
                        before={event.preData}
                        after={event.data}
                      />
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            );
          })}
        </Table.Tbody>
      </Table>
      <Group justify="space-between">
        <Text size="sm" c="dimmed" aria-live="polite">
          Showing {listed.length} of {plural(total, "event")}
        </Text>
        {events.hasNextPage && (
          <Button
            variant="default"
            loading={events.isFetchingNextPage}
            onClick={() => events.fetchNextPage()}
          >
            Load more
          </Button>
        )}
      </Group>
    </Stack>
  );
}

/** The project, flag and environment an event concerns, as links where there is a page for them. */
function Where({ event }: { event: LoggedEvent }) {
  const { project, featureName, environment, tags } = event;
  if (!project && !featureName && !environment && tags.length === 0) return <Text c="dimmed">—</Text>;
  return (
    <Group gap={6}>
      {project && (
        <Anchor component={Link} to={projectPath(project)} size="sm">
          {project}
        </Anchor>
      )}
      {featureName &&
        (project ? (
          <Anchor
            component={Link}
            to={`${projectPath(project)}/features/${encodeURIComponent(featureName)}`}
            size="sm"
            fw={600}
          >
            {featureName}
          </Anchor>
        ) : (
          <Text size="sm" fw={600}>
            {featureName}
          </Text>
        ))}
      {environment && (
        <Badge variant="outline" color="gray" tt="none">
          {environment}
        </Badge>
      )}
      {tags.map((tag) => (
        <Badge key={`${tag.type}:${tag.value}`} variant="dot" color="gray" tt="none">
          {tag.type}:{tag.value}
        </Badge>
      ))}
    </Group>
  );
}
