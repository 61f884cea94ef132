import { Badge, Button, CloseButton, Group, Modal, Select, Stack, Text, TextInput } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../../api/client";
import { FormError, fieldError } from "../../components/form-error";
import { GuardedButton } from "../../components/guarded-button";
import { notifyDone } from "../../components/notify";
import { useFlagCan } from "../permissions";
import { type Flag, useFlagChanged, useTagTypes } from "../queries";

/** The flag's tags, each removable, and a way to add one of a known tag type. */
export function FlagTags({ flag }: { flag: Flag }) {
  const can = useFlagCan(flag);
  const verdict = can("UPDATE_FEATURE");
  const flagChanged = useFlagChanged({ projectId: flag.project, featureName: flag.name });
  const [adding, setAdding] = useState(false);
  const remove = useMutation({
    mutationFn: (tag: { type: string; value: string }) =>
      unwrap(
        api.DELETE("/api/admin/features/{featureName}/tags/{type}/{value}", {
          params: { path: { featureName: flag.name, ...tag } },
        }),
      ),
    onSuccess: async (_, tag) => {
      await flagChanged();
      notifyDone(`Tag ${tag.type}:${tag.value} removed.`);
    },
  });

  return (
    <Group gap="xs">
      {flag.tags.length === 0 && (
        <Text size="sm" c="dimmed">
          None
        </Text>
      )}
      {flag.tags.map((tag) => (
        <Badge
          key={`${tag.type}:${tag.value}`}
          variant="outline"
          tt="none"
          rightSection={
            verdict.allowed && (
              <CloseButton
                size="xs"
                aria-label={`Remove tag ${tag.type}:${tag.value}`}
                onClick={() => remove.mutate(tag)}
              />
            )
          }
        >
          {tag.type}:{tag.value}
        </Badge>
      ))}
      <GuardedButton
        verdict={verdict}
        variant="subtle"
        size="compact-sm"
        leftSection={<IconPlus size={14} />}
        onClick={() => setAdding(true)}
      >
        Add tag
      </GuardedButton>
      {adding && <AddTagModal flag={flag} onClose={() => setAdding(false)} />}
    </Group>
  );
}

function AddTagModal({ flag, onClose }: { flag: Flag; onClose: () => void }) {
  const tagTypes = useTagTypes();
  const flagChanged = useFlagChanged({ projectId: flag.project, featureName: flag.name });
  const [type, setType] = useState<string | null>("simple");
  const [value, setValue] = useState("");
  const add = useMutation({
    meta: { quiet: true },
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/features/{featureName}/tags", {
          params: { path: { featureName: flag.name } },
          body: { type: type ?? undefined, value: value.trim() },
        }),
      ),
    onSuccess: async () => {
      await flagChanged();
      notifyDone(`Tagged ${flag.name} ${type}:${value.trim()}.`);
      onClose();
    },
  });
  const types = (tagTypes.data?.tagTypes ?? []).map((tagType) => ({
    value: tagType.name,
    label: tagType.description ? `${tagType.name} – ${tagType.description}` : tagType.name,
  }));

  return (
    <Modal opened onClose={onClose} title={`Tag ${flag.name}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate();
        }}
      >
        <Stack>
          <Select
            label="Tag type"
            data={types}
            value={type}
            onChange={setType}
            allowDeselect={false}
            error={fieldError(add.error, "type")}
          />
          <TextInput
            label="Value"
            description="2 to 50 characters"
            required
            value={value}
            onChange={(event) => setValue(event.currentTarget.value)}
            error={fieldError(add.error, "value")}
          />
          <FormError error={add.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={add.isPending} disabled={value.trim().length < 2 || !type}>
              Add tag
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
