import { Badge, Button, Group, Modal, Radio, Select, Stack, Text } from "@mantine/core";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../../api/client";
import { FormError } from "../../components/form-error";
import { GuardedButton } from "../../components/guarded-button";
import { notifyDone } from "../../components/notify";
import { RelativeTime } from "../../components/relative-time";
import { queryKeys } from "../../query-keys";
import { useFlagCan } from "../permissions";
import { type Flag, useFlagChanged } from "../queries";

// What each stage means, as the reference explains them.
const STAGES: Record<string, string> = {
  initial: "Defined, not yet seen by any SDK",
  "pre-live": "Seen by SDKs outside production",
  live: "Seen by SDKs in production",
  completed: "Its work is done: the code can be cleaned up",
  archived: "Archived",
};

/** Where the flag is in its life, how it got there, and marking it completed (or not). */
export function LifecycleStage({ flag }: { flag: Flag }) {
  const place = { projectId: flag.project, featureName: flag.name };
  const can = useFlagCan(flag);
  const flagChanged = useFlagChanged(place);
  const [completing, setCompleting] = useState(false);
  const stages = useQuery({
    queryKey: queryKeys.flags.lifecycle(place.projectId, place.featureName),
    queryFn: () =>
      unwrap(
        api.GET("/api/admin/projects/{projectId}/features/{featureName}/lifecycle", {
          params: { path: place },
        }),
      ),
  });
  const current = stages.data?.at(-1) ?? flag.lifecycle;
  const uncomplete = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/projects/{projectId}/features/{featureName}/lifecycle/uncomplete", {
          params: { path: place },
        }),
      ),
    onSuccess: async () => {
      await flagChanged();
      notifyDone(`${flag.name} is no longer completed.`);
    },
  });
  if (!current) return <Text size="sm">Unknown</Text>;
  const status = stages.data?.at(-1)?.status;

  return (
    <Stack gap={4}>
      <Group gap="xs">
        <Badge variant="light" title={STAGES[current.stage]}>
          {current.stage}
          {status ? `: ${status}` : ""}
        </Badge>
        <Text size="xs" c="dimmed">
          since <RelativeTime value={current.enteredStageAt} />
        </Text>
      </Group>
      {(stages.data?.length ?? 0) > 1 && (
        <Text size="xs" c="dimmed">
          {stages.data?.map((entry) => entry.stage).join(" → ")}
        </Text>
      )}
      <Group>
        {!flag.archived &&
          (current.stage === "completed" ? (
            <GuardedButton
              verdict={can("UPDATE_FEATURE")}
              variant="subtle"
              size="compact-sm"
              loading={uncomplete.isPending}
              onClick={() => uncomplete.mutate()}
            >
              Not completed after all
            </GuardedButton>
          ) : (
            <GuardedButton
              verdict={can("UPDATE_FEATURE")}
              variant="subtle"
              size="compact-sm"
              onClick={() => setCompleting(true)}
            >
              Mark completed
            </GuardedButton>
          ))}
      </Group>
      {completing && <CompleteModal flag={flag} onClose={() => setCompleting(false)} />}
    </Stack>
  );
}

function CompleteModal({ flag, onClose }: { flag: Flag; onClose: () => void }) {
  const place = { projectId: flag.project, featureName: flag.name };
  const flagChanged = useFlagChanged(place);
  const [status, setStatus] = useState<"kept" | "discarded">("kept");
  const [variant, setVariant] = useState<string | null>(null);
  const variantNames = [
    ...new Set(flag.environments.flatMap((environment) => environment.variants.map((entry) => entry.name))),
  ];
  const complete = useMutation({
    meta: { quiet: true },
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/projects/{projectId}/features/{featureName}/lifecycle/complete", {
          params: { path: place },
          body: status === "kept" && variant ? { status, statusValue: variant } : { status },
        }),
      ),
    onSuccess: async () => {
      await flagChanged();
      notifyDone(`${flag.name} marked completed.`);
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title={`Mark ${flag.name} completed`}>
      <Stack>
        <Radio.Group
          label="Outcome"
          description="Whether the feature stays in the product once the flag is removed from the code"
          value={status}
          onChange={(next) => setStatus(next === "discarded" ? "discarded" : "kept")}
        >
          <Stack gap="xs" mt="xs">
            <Radio value="kept" label="Kept: the feature stays" />
            <Radio value="discarded" label="Discarded: the feature goes" />
          </Stack>
        </Radio.Group>
        {status === "kept" && variantNames.length > 0 && (
          <Select
            label="Variant kept"
            description="Optional: the variant that won"
            data={variantNames}
            value={variant}
            onChange={setVariant}
            clearable
          />
        )}
        <FormError error={complete.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button loading={complete.isPending} onClick={() => complete.mutate()}>
            Mark completed
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
