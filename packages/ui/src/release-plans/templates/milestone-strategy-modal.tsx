import { Button, Group, Modal, Stack } from "@mantine/core";
import { useState } from "react";
import { useSegments, useStrategyDefinitions } from "../../flags/queries";
import {
  draftProblems,
  fieldsDefinition,
  newDraft,
  type StrategyDraft,
} from "../../flags/strategies/strategy-draft";
import { DraftProblems, StrategyFields } from "../../flags/strategies/strategy-editor";
import { TEMPLATE_PLACE } from "./template-draft";

/**
 * A strategy of a template's milestone, with the fields a flag's strategy has. Nothing is
 * saved here: `onSave` hands the strategy to the template's form, saved with the template.
 */
export function MilestoneStrategyModal({
  milestone,
  strategy,
  onSave,
  onClose,
}: {
  /** The milestone's name, for the title. */
  milestone: string;
  /** The strategy to change; a new one when absent. */
  strategy?: StrategyDraft | undefined;
  onSave: (strategy: StrategyDraft) => void;
  onClose: () => void;
}) {
  const definitions = useStrategyDefinitions();
  const segments = useSegments();
  const [draft, setDraft] = useState<StrategyDraft>(() => strategy ?? newDraft(TEMPLATE_PLACE));
  const definition = fieldsDefinition(
    definitions.data?.strategies.find((candidate) => candidate.name === draft.name),
    true,
  );
  const problems = draftProblems(draft, definition);
  const of = milestone.trim() ? ` of milestone ${milestone.trim()}` : "";

  return (
    <Modal
      opened
      onClose={onClose}
      size="xl"
      closeOnClickOutside={false}
      title={
        strategy ? `Edit a strategy${of}` : `Add a strategy${of ? ` to milestone ${milestone.trim()}` : ""}`
      }
    >
      <Stack gap="lg">
        <StrategyFields
          draft={draft}
          onChange={(patch) => setDraft((current) => ({ ...current, ...patch }))}
          place={TEMPLATE_PLACE}
          // A template serves flags of every project: only segments every project may use.
          segments={(segments.data?.segments ?? []).filter((segment) => segment.project === null)}
          template
        />
        <DraftProblems problems={problems} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button disabled={problems.length > 0} onClick={() => onSave(draft)}>
            {strategy ? "Keep changes" : "Add strategy"}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
