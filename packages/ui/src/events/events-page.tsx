import { Box, Button, CopyButton, Grid, Select, Stack, TextInput } from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { useEffect, useMemo, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { PageHeader } from "../components/page-header";
import { useProjects } from "../projects/projects-page";
import { EventList } from "./event-list";
import { EVENT_TYPES, type EventFilter, type EventType } from "./event-types";

// Grouped by the word the type starts with (feature-…, project-…), in the service's order.
const TYPE_GROUPS = (() => {
  const groups = new Map<string, string[]>();
  for (const type of EVENT_TYPES) {
    const group = type.split("-")[0] ?? type;
    groups.set(group, [...(groups.get(group) ?? []), type]);
  }
  return [...groups].map(([group, items]) => ({ group, items }));
})();

const isEventType = (value: string | null): value is EventType =>
  value !== null && (EVENT_TYPES as string[]).includes(value);

/** A day (yyyy-mm-dd) as the moment it starts where the reader is, `days` later. */
const dayStart = (day: string, days = 0) => {
  const [year, month, date] = day.split("-").map(Number);
  if (!year || !month || !date) return undefined;
  return new Date(year, month - 1, date + days).toISOString();
};

type Field = "type" | "project" | "feature" | "createdBy" | "query" | "from" | "to";

/** The event log, filtered by what is in the address, so a filtered view can be shared as a link. */
export default function EventsPage() {
  const [params, setParams] = useSearchParams();
  const value = (field: Field) => params.get(field) ?? "";
  const set = (field: Field, next: string | null) =>
    setParams(
      (current) => {
        const updated = new URLSearchParams(current);
        if (next) updated.set(field, next);
        else updated.delete(field);
        return updated;
      },
      { replace: true },
    );

  const type = params.get("type");
  const from = value("from");
  const to = value("to");
  const filter = useMemo<EventFilter>(() => {
    const chosen: EventFilter = {};
    if (isEventType(type)) chosen.type = type;
    for (const field of ["project", "feature", "createdBy", "query"] as const) {
      const text = params.get(field)?.trim();
      if (text) chosen[field] = text;
    }
    const start = from && dayStart(from);
    // The whole of the last day chosen: events before the next one starts.
    const end = to && dayStart(to, 1);
    if (start) chosen.from = start;
    if (end) chosen.to = end;
    return chosen;
  }, [params, type, from, to]);

  const projects = useProjects();
  const projectOptions = (projects.data?.projects ?? []).map((project) => ({
    value: project.id,
    label: project.name,
  }));

  return (
    <>
      <PageHeader
        title="Event log"
        description="Every change made to flags, projects and settings, newest first, with what it changed."
        actions={
          <CopyButton value={window.location.href}>
            {({ copied, copy }) => (
              <Button variant="default" onClick={copy}>
                {copied ? "Link copied" : "Copy link to this view"}
              </Button>
            )}
          </CopyButton>
        }
      />
      <Stack>
        <Box role="search" aria-label="Filter events">
          <Grid align="flex-end">
            <Grid.Col span={{ base: 12, sm: 6, lg: 3 }}>
              <Select
                label="Event type"
                placeholder="Any type"
                data={TYPE_GROUPS}
                value={isEventType(type) ? type : null}
                onChange={(next) => set("type", next)}
                searchable
                clearable
              />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 6, lg: 3 }}>
              <Select
                label="Project"
                placeholder="Any project"
                data={projectOptions}
                value={value("project") || null}
                onChange={(next) => set("project", next)}
                searchable
                clearable
              />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 6, lg: 3 }}>
              <FilterText
                label="Flag"
                placeholder="Exact flag name"
                value={value("feature")}
                onChange={(next) => set("feature", next)}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 6, lg: 3 }}>
              <FilterText
                label="Who"
                placeholder="Part of a name"
                value={value("createdBy")}
                onChange={(next) => set("createdBy", next)}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 12, sm: 6, lg: 6 }}>
              <FilterText
                label="Search"
                placeholder="Text anywhere in the event"
                value={value("query")}
                onChange={(next) => set("query", next)}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 6, lg: 2 }}>
              <TextInput
                type="date"
                label="From"
                value={from}
                max={to || undefined}
                onChange={(event) => set("from", event.currentTarget.value)}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 6, lg: 2 }}>
              <TextInput
                type="date"
                label="To"
                value={to}
                min={from || undefined}
                onChange={(event) => set("to", event.currentTarget.value)}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 12, lg: 2 }}>
              <Button
                variant="subtle"
                disabled={params.size === 0}
                onClick={() => setParams({}, { replace: true })}
              >
                Clear filters
              </Button>
            </Grid.Col>
          </Grid>
        </Box>
        <EventList filter={filter} />
      </Stack>
    </>
  );
}

/**
 * A text filter that searches once typing pauses, not at every key; it follows the address
 * when that changes by other means (back, a shared link, clearing the filters).
 */
function FilterText({
  label,
  placeholder,
  value,
  onChange,
}: {
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const [text, setText] = useState(value);
  const sent = useRef(value);
  const send = useDebouncedCallback((next: string) => {
    sent.current = next;
    onChange(next);
  }, 300);
  useEffect(() => {
    if (value !== sent.current) {
      sent.current = value;
      setText(value);
    }
  }, [value]);
  return (
    <TextInput
      label={label}
      placeholder={placeholder}
      value={text}
      onChange={(event) => {
        setText(event.currentTarget.value);
        send(event.currentTarget.value);
      }}
    />
  );
}
