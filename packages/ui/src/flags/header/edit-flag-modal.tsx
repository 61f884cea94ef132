import { Checkbox, Modal, Select, Stack } from "@mantine/core";
import { useForm } from "@mantine/form";
import { api, type paths, unwrap } from "../../api/client";
import { FormError } from "../../components/form-error";
import { DescriptionField, FormActions } from "../../components/form-fields";
import { notifyDone } from "../../components/notify";
import { useFormSave } from "../../components/use-form-save";
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
  const form = useForm({
    initialValues: {
      description: flag.description ?? "",
      type: flag.type as string,
      impressionData: flag.impressionData,
    },
  });
  const { mutation: save, submit } = useFormSave(form, {
    save: ({ description, type, impressionData }) =>
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
    onSaved: async () => {
      await flagChanged();
      notifyDone(`${flag.name} saved.`);
      onClose();
    },
  });

  const types = Object.entries(FLAG_TYPES).map(([value, label]) => ({ value, label }));
  if (!isFlagType(form.values.type)) types.push({ value: form.values.type, label: form.values.type });

  return (
    <Modal opened onClose={onClose} title={`Edit ${flag.name}`}>
      <form onSubmit={submit}>
        <Stack>
          <DescriptionField {...form.getInputProps("description")} />
          <Select label="Flag type" data={types} allowDeselect={false} {...form.getInputProps("type")} />
          <Checkbox
            label="Impression data"
            description="SDKs emit an impression event each time they evaluate the flag"
            {...form.getInputProps("impressionData", { type: "checkbox" })}
          />
          <FormError error={save.error} />
          <FormActions submitLabel="Save" saving={save.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
