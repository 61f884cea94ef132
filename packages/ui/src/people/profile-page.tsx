import {
  Badge,
  Button,
  Card,
  Group,
  PasswordInput,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import { type Me, useMe } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { FormError, fieldError } from "../components/form-error";
import { notifyDone } from "../components/notify";
import { PageHeader } from "../components/page-header";
import { queryKeys } from "../query-keys";
import { NewPasswordInput } from "./new-password-input";
import { PersonalTokens } from "./personal-tokens";

const EVERYONE = { allowed: true, reason: undefined };

export default function ProfilePage() {
  const me = useMe();
  const profile = useQuery({
    queryKey: queryKeys.session.profile(),
    queryFn: () => unwrap(api.GET("/api/admin/user/profile")),
  });
  const client = useQueryClient();
  const tokens = useQuery({
    queryKey: queryKeys.session.personalTokens(),
    queryFn: () => unwrap(api.GET("/api/admin/user/tokens")),
  });
  const changed = () => client.invalidateQueries({ queryKey: queryKeys.session.personalTokens() });

  if (me.isError) return <ErrorPanel error={me.error} />;
  const user = me.data?.user;
  return (
    <Stack gap="xl">
      <PageHeader
        title="Profile and tokens"
        description="Who you are here, what you may do, and your own tokens."
      />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Stack gap="xs">
            <Title order={3}>You</Title>
            <Field label="Name" value={user?.name} />
            <Field label="Username" value={user?.username} />
            <Field label="Email" value={user?.email} />
            <Field label="Root role" value={profile.data?.rootRole.name} />
            <Field
              label="Member of"
              value={profile.data && (profile.data.projects.join(", ") || "No projects")}
            />
          </Stack>
        </Card>
        <Card withBorder>
          <ChangePassword />
        </Card>
      </SimpleGrid>
      {me.data && <PermissionSummary permissions={me.data.permissions} />}
      {tokens.isError && <ErrorPanel error={tokens.error} />}
      <PersonalTokens
        title="Personal access tokens"
        tokens={tokens.data?.pats}
        verdict={EVERYONE}
        create={async (body) => {
          const created = await unwrap(api.POST("/api/admin/user/tokens", { body }));
          await changed();
          return created;
        }}
        remove={async (token) => {
          await unwrap(api.DELETE("/api/admin/user/tokens/{id}", { params: { path: { id: token.id } } }));
          await changed();
          notifyDone(`Token ${token.description} deleted.`);
        }}
      />
    </Stack>
  );
}

function Field({ label, value }: { label: string; value: string | null | undefined }) {
  return (
    <Group gap="xs">
      <Text fw={600} w={100}>
        {label}
      </Text>
      <Text>{value || "—"}</Text>
    </Group>
  );
}

type Grant = NonNullable<Me>["permissions"][number];

/** What the person may do, by where: everywhere, then project by project with each permission's environments. */
function PermissionSummary({ permissions }: { permissions: readonly Grant[] }) {
  if (permissions.some((grant) => grant.permission === "ADMIN"))
    return <Text>You are an administrator: you may do everything, everywhere.</Text>;
  const root = permissions.filter((grant) => grant.project === undefined).map((grant) => grant.permission);
  const projects = new Map<string, Map<string, string[]>>();
  for (const grant of permissions) {
    if (grant.project === undefined) continue;
    const held = projects.get(grant.project) ?? new Map<string, string[]>();
    const environments = held.get(grant.permission) ?? [];
    if (grant.environment) environments.push(grant.environment);
    held.set(grant.permission, environments);
    projects.set(grant.project, held);
  }
  return (
    <Stack>
      <Title order={3}>What you may do</Title>
      <Table aria-label="Your permissions" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Where</Table.Th>
            <Table.Th>Permissions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          <Table.Tr>
            <Table.Td>Everywhere</Table.Td>
            <Table.Td>
              <Group gap={4}>
                {root.length === 0
                  ? "Reading only"
                  : root.map((name) => (
                      <Badge key={name} variant="light">
                        {name}
                      </Badge>
                    ))}
              </Group>
            </Table.Td>
          </Table.Tr>
          {[...projects].map(([project, held]) => (
            <Table.Tr key={project}>
              <Table.Td>Project {project}</Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {[...held].map(([name, environments]) => (
                    <Badge key={name} variant="light" color="grape" tt="none">
                      {environments.length > 0 ? `${name} in ${environments.join(", ")}` : name}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

function ChangePassword() {
  const [oldPassword, setOldPassword] = useState("");
  const [password, setPassword] = useState("");
  const [confirmPassword, setConfirmPassword] = useState("");
  const change = useMutation({
    meta: { quiet: true },
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/user/change-password", { body: { oldPassword, password, confirmPassword } }),
      ),
    onSuccess: () => {
      setOldPassword("");
      setPassword("");
      setConfirmPassword("");
      notifyDone("Password changed. Your other sessions have ended.");
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Change password">
      <Stack gap="xs">
        <Title order={3}>Change password</Title>
        <PasswordInput
          label="Current password"
          required
          autoComplete="current-password"
          value={oldPassword}
          onChange={(event) => setOldPassword(event.currentTarget.value)}
          error={fieldError(change.error, "oldPassword")}
        />
        <NewPasswordInput
          label="New password"
          required
          value={password}
          onChange={setPassword}
          error={fieldError(change.error, "password")}
        />
        <PasswordInput
          label="Confirm password"
          required
          autoComplete="new-password"
          value={confirmPassword}
          onChange={(event) => setConfirmPassword(event.currentTarget.value)}
          error={
            fieldError(change.error, "confirmPassword") ??
            (confirmPassword && confirmPassword !== password
              ? "Not the same as the new password."
              : undefined)
          }
        />
        <FormError error={change.error} inline={["oldPassword", "password", "confirmPassword"]} />
        <Group justify="flex-end">
          <Button type="submit" loading={change.isPending}>
            Change password
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
