import { Button, Group, Select, Stack, TextInput } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import { FormError, fieldError } from "../components/form-error";
import { notifyDone } from "../components/notify";
import { SecretOnce } from "../components/secret-once";
import { NewPasswordInput } from "./new-password-input";
import type { fetchUsers } from "./users-page";

type UserList = Awaited<ReturnType<typeof fetchUsers>>;
export type User = UserList["users"][number];
export type RootRole = UserList["rootRoles"][number];

/** The root role choice every kind of account shares. */
export function RootRoleSelect({
  rootRoles,
  value,
  onChange,
  error,
}: {
  rootRoles: readonly RootRole[];
  value: number | null;
  onChange: (id: number) => void;
  error?: string | undefined;
}) {
  return (
    <Select
      label="Root role"
      description="What they may do outside the projects they are members of."
      required
      data={rootRoles.map((role) => ({ value: String(role.id), label: role.name }))}
      value={value === null ? null : String(value)}
      onChange={(chosen) => chosen && onChange(Number(chosen))}
      allowDeselect={false}
      error={error}
    />
  );
}

/**
 * Creates a person or changes one. Created without a password, they get a reset link to
 * set their own, shown here once.
 */
export function UserForm({
  user,
  rootRoles,
  onDone,
}: {
  user: User | undefined;
  rootRoles: readonly RootRole[];
  onDone: () => void;
}) {
  const client = useQueryClient();
  const [name, setName] = useState(user?.name ?? "");
  const [username, setUsername] = useState(user?.username ?? "");
  const [email, setEmail] = useState(user?.email ?? "");
  const [password, setPassword] = useState("");
  const [rootRole, setRootRole] = useState<number | null>(
    user?.rootRole ?? rootRoles.find((role) => role.name === "Viewer")?.id ?? null,
  );
  const save = useMutation({
    meta: { quiet: true },
    mutationFn: async () => {
      const common = {
        ...(name ? { name } : {}),
        ...(email ? { email } : {}),
        ...(rootRole === null ? {} : { rootRole }),
      };
      if (user) {
        await unwrap(
          api.PUT("/api/admin/user-admin/{id}", { params: { path: { id: user.id } }, body: common }),
        );
        return undefined;
      }
      const created = await unwrap(
        api.POST("/api/admin/user-admin", {
          body: {
            ...common,
            rootRole: rootRole ?? "Viewer",
            ...(username ? { username } : {}),
            ...(password ? { password } : {}),
          },
        }),
      );
      if (password) return undefined;
      const { resetPasswordUrl } = await unwrap(
        api.POST("/api/admin/user-admin/reset-password", { body: { id: String(created.id) } }),
      );
      return resetPasswordUrl;
    },
    onSuccess: async (resetLink) => {
      await client.invalidateQueries({ queryKey: ["users"] });
      notifyDone(user ? "User saved." : "User created.");
      if (!resetLink) onDone();
    },
  });

  if (save.data)
    return (
      <SecretOnce
        label="Reset link"
        value={save.data}
        copyLabel="Copy link"
        warning="They have no password yet: give them this link to set one, once, within 24 hours. It is not shown again."
        onDone={onDone}
      />
    );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit}>
      <Stack>
        <TextInput
          label="Name"
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={fieldError(save.error, "name")}
        />
        <TextInput
          label="Username"
          description={
            user ? "A username cannot be changed." : "A username, an email or both: either logs in."
          }
          disabled={user !== undefined}
          value={username}
          onChange={(event) => setUsername(event.currentTarget.value)}
          error={fieldError(save.error, "username")}
        />
        <TextInput
          label="Email"
          type="email"
          value={email}
          onChange={(event) => setEmail(event.currentTarget.value)}
          error={fieldError(save.error, "email")}
        />
        <RootRoleSelect
          rootRoles={rootRoles}
          value={rootRole}
          onChange={setRootRole}
          error={fieldError(save.error, "rootRole")}
        />
        {!user && (
          <NewPasswordInput
            label="Password"
            description="Leave it empty to get a link with which they set their own."
            value={password}
            onChange={setPassword}
            error={fieldError(save.error, "password")}
          />
        )}
        <FormError error={save.error} inline={["name", "username", "email", "rootRole", "password"]} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            {user ? "Save user" : "Create user"}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
