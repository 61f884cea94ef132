import { Button, Checkbox, Group, Modal, Select, Stack, Textarea } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api, type paths, unwrap } from "../../api/client";
import { FormError } from "../../components/form-error";
import { notifyDone } from "../../components/notify";
import { type Flag, useFlagChanged } from "../queries";

type Update =
  paths["/api/admin/projects/{projectId}/features/{featureName}"]["put"]["requestBody"]["content"]["application/json"];
export type FlagType = NonNullable<Update["type"]>;

// A Record, so a type the service starts accepting fails the build until it is described.
export const FLAG_TYPES: Record<FlagType, string> = {
  release: "Release: ships new code gradually; expected to live weeks",
  experiment: "Experiment: tests variants against each other; weeks",
  operational: "Operational: changes how the system behaves; weeks",
  "kill-switch": "Kill switch: turns a part off when it misbehaves; kept for good",
  permission: "Permission: gives some users a feature; kept for good",
};
const isFlagType = (type: string): type is FlagType => Object.hasOwn(FLAG_TYPES, type);

/** The flag's description, type and impression data, changed together. */
export function EditFlagModal({ flag, onClose }: { flag: Flag; onClose: () => void }) {
  const flagChanged = useFlagChanged({ projectId: flag.project, featureName: flag.name });
  const [description, setDescription] = useState(flag.description ?? "");
  const [type, setType] = useState<string>(flag.type);
  const [impressionData, setImpressionData] = useState(flag.impressionData);

  const save = useMutation({
    meta: { quiet: true },
    mutationFn: () =>
      unwrap(
        api.PATCH("/api/admin/projects/{projectId}/features/{featureName}", {
          params: { path: { projectId: flag.project, featureName: flag.name } },
          body: [
            { op: "replace", path: "/description", value: description.trim() || null },
            { op: "replace", path: "/type", value: type },
            { op: "replace", path: "/impressionData", value: impressionData },
          ],
        }),
      ),
    onSuccess: async () => {
      await flagChanged();
      notifyDone(`${flag.name} saved.`);
      onClose();
    },
  });

  const types = Object.entries(FLAG_TYPES).map(([value, label]) => ({ value, label }));
  if (!isFlagType(type)) types.push({ value: type, label: type });

  return (
    <Modal opened onClose={onClose} title={`Edit ${flag.name}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Stack>
          <Textarea
            label="Description"
            autosize
            minRows={2}
            value={description}
            onChange={(event) => setDescription(event.currentTarget.value)}
          />
          <Select
            label="Flag type"
            data={types}
            value={type}
            onChange={(next) => next && setType(next)}
            allowDeselect={false}
          />
          <Checkbox
            label="Impression data"
            description="SDKs emit an impression event each time they evaluate the flag"
            checked={impressionData}
            onChange={(event) => setImpressionData(event.currentTarget.checked)}
          />
          <FormError error={save.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
