import { Checkbox, Fieldset, Loader, SegmentedControl, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { ErrorPanel } from "../components/error-panel";
import { FormError } from "../components/form-error";
import { DescriptionField, FormActions, NameField } from "../components/form-fields";
import { notifyDone } from "../components/notify";
import { useFormSave } from "../components/use-form-save";
import { queryKeys } from "../query-keys";
import { type Role, useRole } from "./queries";

type CustomType = "root-custom" | "custom";

const useCatalogue = () =>
  useQuery({
    queryKey: queryKeys.roles.permissions(),
    queryFn: () => unwrap(api.GET("/api/admin/permissions")),
    staleTime: 60_000,
  });

// A held permission as one string: an environment permission without an environment holds in every one.
const keyOf = (name: string, environment?: string | null) => `${name}@${environment ?? ""}`;

/** Creates a custom role or changes one: its name, description and permissions from the service's catalogue. */
export function RoleForm({ role, onDone }: { role: Role | undefined; onDone: () => void }) {
  const held = useRole(role?.id);
  const catalogue = useCatalogue();
  if (held.isError) return <ErrorPanel error={held.error} />;
  if (catalogue.isError) return <ErrorPanel error={catalogue.error} />;
  if (!catalogue.data || (role && !held.data)) return <Loader aria-label="Loading" />;
  return (
    <RoleFields
      role={role}
      held={held.data?.permissions ?? []}
      catalogue={catalogue.data.permissions}
      onDone={onDone}
    />
  );
}

type Catalogue = NonNullable<ReturnType<typeof useCatalogue>["data"]>["permissions"];
type Held = NonNullable<ReturnType<typeof useRole>["data"]>["permissions"];

function RoleFields({
  role,
  held,
  catalogue,
  onDone,
}: {
  role: Role | undefined;
  held: Held;
  catalogue: Catalogue;
  onDone: () => void;
}) {
  const client = useQueryClient();
  const form = useForm({
    initialValues: {
      name: role?.name ?? "",
      description: role?.description ?? "",
      type: (role?.type === "root-custom" ? "root-custom" : "custom") as CustomType,
      chosen: held.map((permission) => keyOf(permission.name, permission.environment)),
    },
  });
  const { type } = form.values;
  const chosen = new Set(form.values.chosen);
  const toggle = (key: string, on: boolean) =>
    form.setFieldValue("chosen", (current) =>
      on ? [...current, key] : current.filter((held) => held !== key),
    );

  const environmentPermissions = catalogue.environments[0]?.permissions ?? [];
  // Only what the kind of role can hold is sent: switching kinds keeps the other's choices aside.
  const candidates: { name: string; environment?: string }[] =
    type === "root-custom"
      ? catalogue.root.map(({ name }) => ({ name }))
      : [
          ...catalogue.project.map(({ name }) => ({ name })),
          ...environmentPermissions.map(({ name }) => ({ name })),
          ...catalogue.environments.flatMap((environment) =>
            environment.permissions
              .filter(({ name }) => !chosen.has(keyOf(name)))
              .map(({ name }) => ({ name, environment: environment.name })),
          ),
        ];
  const permissions = candidates.filter((candidate) =>
    chosen.has(keyOf(candidate.name, candidate.environment)),
  );

  const { mutation: save, submit } = useFormSave(form, {
    save: async ({ name, description }) => {
      const body = { name, description: description || null, type, permissions };
      if (role) await unwrap(api.PUT("/api/admin/roles/{id}", { params: { path: { id: role.id } }, body }));
      else await unwrap(api.POST("/api/admin/roles", { body }));
    },
    onSaved: async (_, { name }) => {
      await Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.roles.list() }),
        client.invalidateQueries({ queryKey: queryKeys.roles.details() }),
        // Who may do what changes with the role, the person's own permissions included.
        client.invalidateQueries({ queryKey: queryKeys.session.me() }),
      ]);
      notifyDone(role ? `Role ${name} saved.` : `Role ${name} created.`);
      onDone();
    },
  });

  const box = (label: string, key: string, ariaLabel?: string, disabled = false) => (
    <Checkbox
      key={key}
      label={label}
      aria-label={ariaLabel}
      checked={chosen.has(key) || disabled}
      disabled={disabled}
      onChange={(event) => toggle(key, event.currentTarget.checked)}
    />
  );
  return (
    <form onSubmit={submit}>
      <Stack>
        <NameField {...form.getInputProps("name")} />
        <DescriptionField {...form.getInputProps("description")} />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="role-kind">
            Kind
          </Text>
          <SegmentedControl
            aria-labelledby="role-kind"
            value={type}
            onChange={(value) =>
              form.setFieldValue("type", value === "root-custom" ? "root-custom" : "custom")
            }
            data={[
              { value: "root-custom", label: "Root role" },
              { value: "custom", label: "Project role" },
            ]}
          />
          <Text size="xs" c="dimmed">
            {type === "root-custom"
              ? "Given to users and groups as their root role: its permissions hold everywhere."
              : "Given to members of a project: its permissions hold in that project."}
            {role && " A role in use keeps its kind."}
          </Text>
        </Stack>
        {type === "root-custom" ? (
          <Fieldset legend="Permissions">
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              {catalogue.root.map((permission) => box(permission.displayName, keyOf(permission.name)))}
            </SimpleGrid>
          </Fieldset>
        ) : (
          <>
            <Fieldset legend="Project permissions">
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                {catalogue.project.map((permission) => box(permission.displayName, keyOf(permission.name)))}
              </SimpleGrid>
            </Fieldset>
            <Fieldset legend="Environment permissions">
              <Table aria-label="Environment permissions" withRowBorders={false}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Permission</Table.Th>
                    <Table.Th>Every environment</Table.Th>
                    {catalogue.environments.map((environment) => (
                      <Table.Th key={environment.name}>{environment.name}</Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {environmentPermissions.map((permission) => {
                    const everywhere = chosen.has(keyOf(permission.name));
                    return (
                      <Table.Tr key={permission.name}>
                        <Table.Td>{permission.displayName}</Table.Td>
                        <Table.Td>
                          {box("", keyOf(permission.name), `${permission.displayName} in every environment`)}
                        </Table.Td>
                        {catalogue.environments.map((environment) => (
                          <Table.Td key={environment.name}>
                            {box(
                              "",
                              keyOf(permission.name, environment.name),
                              `${permission.displayName} in ${environment.name}`,
                              everywhere,
                            )}
                          </Table.Td>
                        ))}
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Fieldset>
          </>
        )}
        <FormError error={save.error} inline={["name"]} />
        <FormActions
          submitLabel={role ? "Save role" : "Create role"}
          saving={save.isPending}
          onCancel={onDone}
        />
      </Stack>
    </form>
  );
}
