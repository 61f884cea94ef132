import {
  Button,
  Checkbox,
  Fieldset,
  Group,
  Loader,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import { ErrorPanel } from "../components/error-panel";
import { FormError, fieldError } from "../components/form-error";
import { notifyDone } from "../components/notify";
import type { useRoles } from "./roles-page";

export type Role = NonNullable<ReturnType<typeof useRoles>["data"]>["roles"][number];
type CustomType = "root-custom" | "custom";

export const isPredefined = (role: Pick<Role, "type">) => role.type === "root" || role.type === "project";
export const isRootRole = (role: Pick<Role, "type">) => role.type === "root" || role.type === "root-custom";

export const useRole = (id: number | undefined) =>
  useQuery({
    queryKey: ["role", id],
    queryFn: () => unwrap(api.GET("/api/admin/roles/{id}", { params: { path: { id: id ?? 0 } } })),
    enabled: id !== undefined,
  });

const useCatalogue = () =>
  useQuery({
    queryKey: ["permissions"],
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
  const [name, setName] = useState(role?.name ?? "");
  const [description, setDescription] = useState(role?.description ?? "");
  const [type, setType] = useState<CustomType>(role?.type === "root-custom" ? "root-custom" : "custom");
  const [chosen, setChosen] = useState(
    () => new Set(held.map((permission) => keyOf(permission.name, permission.environment))),
  );
  const toggle = (key: string, on: boolean) =>
    setChosen((current) => {
      const next = new Set(current);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });

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

  const save = useMutation({
    meta: { quiet: true },
    mutationFn: async () => {
      const body = { name, description: description || null, type, permissions };
      if (role) await unwrap(api.PUT("/api/admin/roles/{id}", { params: { path: { id: role.id } }, body }));
      else await unwrap(api.POST("/api/admin/roles", { body }));
    },
    onSuccess: async () => {
      await Promise.all([
        client.invalidateQueries({ queryKey: ["roles"] }),
        client.invalidateQueries({ queryKey: ["role"] }),
        // Who may do what changes with the role, the person's own permissions included.
        client.invalidateQueries({ queryKey: ["me"] }),
      ]);
      notifyDone(role ? `Role ${name} saved.` : `Role ${name} created.`);
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

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
        <TextInput
          label="Name"
          required
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={fieldError(save.error, "name")}
        />
        <Textarea
          label="Description"
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="role-kind">
            Kind
          </Text>
          <SegmentedControl
            aria-labelledby="role-kind"
            value={type}
            onChange={(value) => setType(value === "root-custom" ? "root-custom" : "custom")}
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
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            {role ? "Save role" : "Create role"}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
