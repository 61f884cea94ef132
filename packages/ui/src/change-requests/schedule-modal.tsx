import "@mantine/dates/styles.css";
import { Button, Group, Modal, Stack, Text } from "@mantine/core";
import { DateTimePicker } from "@mantine/dates";
import dayjs from "dayjs";
import { useState } from "react";

/** A moment picked in the person's time zone (`YYYY-MM-DD HH:mm:ss`), as the service takes it: ISO, UTC. */
export const scheduledAtOf = (local: string): string => dayjs(local).toISOString();

/** The picker's value for a moment the service reported, in the person's time zone. */
export const localOf = (iso: string): string => dayjs(iso).format("YYYY-MM-DD HH:mm:ss");

const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Asks when to apply a request: a date and time in the future, in the person's own time zone. */
export function ScheduleModal({
  title,
  current,
  pending,
  onSchedule,
  onClose,
}: {
  title: string;
  /** The time it is scheduled for, when rescheduling. */
  current?: string | undefined;
  pending: boolean;
  onSchedule: (scheduledAt: string) => void;
  onClose: () => void;
}) {
  const [value, setValue] = useState<string | null>(current ? localOf(current) : null);
  const inPast = value !== null && dayjs(value).isBefore(dayjs());
  return (
    <Modal opened onClose={onClose} title={title}>
      <Stack>
        <DateTimePicker
          label="Apply at"
          description={`In your time zone, ${timeZone()}`}
          placeholder="Pick a date and time"
          value={value}
          onChange={setValue}
          minDate={dayjs().format("YYYY-MM-DD")}
          valueFormat="YYYY-MM-DD HH:mm"
          error={inPast ? "Pick a time in the future." : undefined}
          withSeconds={false}
          popoverProps={{ withinPortal: true }}
        />
        <Text size="sm" c="dimmed">
          The request is applied then, as you, unless it is rejected or cancelled first. If a change no longer
          fits the flag by then, the schedule is suspended instead.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            loading={pending}
            disabled={value === null || inPast}
            onClick={() => value && onSchedule(scheduledAtOf(value))}
          >
            Schedule
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
