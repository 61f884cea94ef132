import { Stack, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { FormError } from "../components/form-error";
import { FormActions, NameField } from "../components/form-fields";
import { notifyDone } from "../components/notify";
import { SecretOnce } from "../components/secret-once";
import { useFormSave } from "../components/use-form-save";
import { queryKeys } from "../query-keys";
import { NewPasswordInput } from "./new-password-input";
import type { RootRole, User } from "./queries";
import { RootRoleSelect } from "./root-role-select";

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
  const form = useForm({
    initialValues: {
      name: user?.name ?? "",
      username: user?.username ?? "",
      email: user?.email ?? "",
      password: "",
      rootRole: user?.rootRole ?? rootRoles.find((role) => role.name === "Viewer")?.id ?? null,
    },
  });
  const { mutation: save, submit } = useFormSave(form, {
    save: async ({ name, username, email, password, rootRole }) => {
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
    onSaved: async (resetLink) => {
      await client.invalidateQueries({ queryKey: queryKeys.users.list() });
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

  return (
    <form onSubmit={submit}>
      <Stack>
        <NameField required={false} {...form.getInputProps("name")} />
        <TextInput
          label="Username"
          description={
            user ? "A username cannot be changed." : "A username, an email or both: either logs in."
          }
          disabled={user !== undefined}
          {...form.getInputProps("username")}
        />
        <TextInput label="Email" type="email" {...form.getInputProps("email")} />
        <RootRoleSelect
          rootRoles={rootRoles}
          value={form.values.rootRole}
          onChange={(id) => form.setFieldValue("rootRole", id)}
          error={form.errors.rootRole}
        />
        {!user && (
          <NewPasswordInput
            label="Password"
            description="Leave it empty to get a link with which they set their own."
            value={form.values.password}
            onChange={(password) => form.setFieldValue("password", password)}
            error={form.errors.password}
          />
        )}
        <FormError error={save.error} inline={["name", "username", "email", "rootRole", "password"]} />
        <FormActions
          submitLabel={user ? "Save user" : "Create user"}
          saving={save.isPending}
          onCancel={onDone}
        />
      </Stack>
    </form>
  );
}
