import { Button, Group, Modal, NumberInput, Select, Stack, Text } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { FormError } from "../../components/form-error";
import type { Milestone } from "../queries";

/**
 * When a milestone hands over on its own, and to which milestone: the one it hands over to now
 * (set before, else the next one) unless another is picked. The wait is counted from when the
 * milestone started.
 */
export function ProgressionModal({
  source,
  milestones,
  active,
  reviewed,
  onSave,
  onClose,
}: {
  source: Milestone;
  /** The plan's milestones in order. */
  milestones: Milestone[];
  /** Whether `source` is the milestone running now. */
  active: boolean;
  reviewed: boolean;
  onSave: (target: Milestone, intervalMinutes: number) => Promise<unknown>;
  onClose: () => void;
}) {
  const others = milestones.filter((milestone) => milestone.id !== source.id);
  const next = milestones[milestones.findIndex((milestone) => milestone.id === source.id) + 1];
  const current = others.find((milestone) => milestone.id === source.targetMilestone);
  const [targetId, setTargetId] = useState<string | null>(current?.id ?? next?.id ?? others[0]?.id ?? null);
  const [minutes, setMinutes] = useState<number | "">(source.transitionCondition?.intervalMinutes ?? 60);
  const target = others.find((milestone) => milestone.id === targetId);
  const valid = target !== undefined && minutes !== "" && Number.isInteger(minutes) && minutes >= 1;
  const save = useMutation({
    meta: { quiet: true },
    mutationFn: () => onSave(target!, Number(minutes)),
    onSuccess: onClose,
  });

  return (
    <Modal opened onClose={onClose} title={`Progression of ${source.name}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (valid) save.mutate();
        }}
      >
        <Stack>
          <Select
            label="Advance to"
            data={others.map((milestone) => ({ value: milestone.id, label: milestone.name }))}
            value={targetId}
            onChange={setTargetId}
            allowDeselect={false}
          />
          <NumberInput
            label="After (minutes)"
            description={`Counted from when ${source.name} started; a safeguard's pause holds it.`}
            min={1}
            allowDecimal={false}
            allowNegative={false}
            value={minutes}
            onChange={(value) => setMinutes(value === "" ? "" : Number(value))}
            error={minutes !== "" && !valid ? "A whole number of minutes, 1 or more" : undefined}
            data-autofocus
          />
          {active && (
            <Text size="sm" c="dimmed">
              If that time has already passed since {source.name} started, it hands over within seconds.
            </Text>
          )}
          <FormError error={save.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={!valid} loading={save.isPending}>
              {reviewed ? "Add to draft" : "Save progression"}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
