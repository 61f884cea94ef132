import { Group, Paper, Stack, Text } from "@mantine/core";
import { IconShieldCheck } from "@tabler/icons-react";
import { useState } from "react";
import type { Verdict } from "../../auth/session";
import { ConfirmButton } from "../../components/confirm-button";
import { GuardedButton } from "../../components/guarded-button";
import { RelativeTime } from "../../components/relative-time";
import type { Safeguard, SafeguardInput } from "../queries";
import { SafeguardChart } from "./safeguard-chart";
import { describeSafeguard } from "./safeguard-draft";
import { SafeguardModal } from "./safeguard-modal";

/**
 * The one safeguard of a plan or of a flag's environment: what it watches, when it last
 * acted, its metric against its threshold; or a button to add one. `subject` names what it
 * guards ("the release plan", "checkout in production"), `effect` what it does when it acts.
 */
export function SafeguardPanel({
  subject,
  effect,
  safeguard,
  verdict,
  reviewed,
  onSave,
  onRemove,
}: {
  subject: string;
  effect: string;
  safeguard: Safeguard | undefined;
  verdict: Verdict;
  /** Whether changes here go to a draft change request. */
  reviewed: boolean;
  onSave: (safeguard: SafeguardInput) => Promise<unknown>;
  onRemove: (safeguard: Safeguard) => Promise<unknown>;
}) {
  const [editing, setEditing] = useState(false);
  const modal = editing && (
    <SafeguardModal
      title={safeguard ? `Edit the safeguard of ${subject}` : `Add a safeguard to ${subject}`}
      effect={effect}
      safeguard={safeguard}
      submitLabel={reviewed ? "Add to draft" : "Save safeguard"}
      onSave={onSave}
      onClose={() => setEditing(false)}
    />
  );

  if (!safeguard) {
    return (
      <Group>
        <GuardedButton
          verdict={verdict}
          variant="subtle"
          size="compact-sm"
          leftSection={<IconShieldCheck size={16} />}
          aria-label={`Add a safeguard to ${subject}`}
          onClick={() => setEditing(true)}
        >
          Add safeguard
        </GuardedButton>
        <Text size="xs" c="dimmed">
          {effect}
        </Text>
        {modal}
      </Group>
    );
  }
  return (
    <Paper withBorder p="sm" component="section" aria-label={`Safeguard of ${subject}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={2}>
            <Group gap={6}>
              <IconShieldCheck size={18} aria-hidden />
              <Text fw={600} size="sm">
                Safeguard: {describeSafeguard(safeguard)}
              </Text>
            </Group>
            <Text size="xs" c="dimmed">
              {effect} Last acted: <RelativeTime value={safeguard.triggeredAt} empty="never" />.
            </Text>
          </Stack>
          <Group gap="xs" wrap="nowrap">
            <GuardedButton
              verdict={verdict}
              variant="subtle"
              size="compact-sm"
              aria-label={`Edit the safeguard of ${subject}`}
              onClick={() => setEditing(true)}
            >
              Edit
            </GuardedButton>
            <ConfirmButton
              verdict={verdict}
              aria-label={`Remove the safeguard of ${subject}`}
              title={`Remove the safeguard of ${subject}?`}
              message={
                reviewed
                  ? "Removing it is added to your draft change request; it is removed when the request is applied."
                  : "Nothing watches the metric for it any more."
              }
              confirmLabel={reviewed ? "Add to draft" : "Remove safeguard"}
              onConfirm={() => onRemove(safeguard)}
            >
              Remove
            </ConfirmButton>
          </Group>
        </Group>
        <SafeguardChart safeguard={safeguard} />
      </Stack>
      {modal}
    </Paper>
  );
}
