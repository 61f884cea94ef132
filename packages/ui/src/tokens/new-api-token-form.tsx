import { Button, Group, MultiSelect, Select, Stack, Switch, TextInput } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { FormError, fieldError } from "../components/form-error";
import { pickHint } from "../components/pick-hint";
import { SecretOnce } from "../components/secret-once";
import { useProjects } from "../projects/projects-page";
import { useEnvironments } from "../projects/queries";
import { queryKeys } from "../query-keys";
import { ConnectSdk } from "../sdk-setup/connect-sdk";

/** The kinds of token, each with what creating one asks (the service's token permissions). */
export const TOKEN_TYPES = [
  { value: "client", label: "Backend", create: "CREATE_CLIENT_API_TOKEN", note: "for server-side SDKs" },
  {
    value: "frontend",
    label: "Frontend",
    create: "CREATE_FRONTEND_API_TOKEN",
    note: "for browser and mobile SDKs",
  },
  { value: "admin", label: "Admin", create: "ADMIN", note: "for scripts calling the admin API, everywhere" },
] as const;

type TokenType = (typeof TOKEN_TYPES)[number]["value"];

/** Makes an API token, then shows its secret the one time the service gives it. */
export function NewApiTokenForm({ onDone }: { onDone: () => void }) {
  const client = useQueryClient();
  const can = useCan();
  const projects = useProjects();
  const environments = useEnvironments();
  const allowed = TOKEN_TYPES.filter((type) => can(type.create).allowed);
  const [tokenName, setTokenName] = useState("");
  const [type, setType] = useState<TokenType>(allowed[0]?.value ?? "client");
  const [allProjects, setAllProjects] = useState(true);
  const [chosen, setChosen] = useState<string[]>([]);
  const [picked, setPicked] = useState<string | null>(null);
  const admin = type === "admin";
  const environment = picked ?? environments.data?.environments[0]?.name;
  const create = useMutation({
    meta: { quiet: true },
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/api-tokens", {
          // Admin tokens cover everything: the service refuses them a scope.
          body: admin
            ? { tokenName, type }
            : {
                tokenName,
                type,
                projects: allProjects ? ["*"] : chosen,
                ...(environment ? { environment } : {}),
              },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.apiTokens.list() }),
  });

  if (create.data) {
    return (
      <Stack>
        <SecretOnce label="Secret" value={create.data.secret} onDone={onDone} />
        <ConnectSdk token={create.data} />
      </Stack>
    );
  }

  const refused = TOKEN_TYPES.filter((type) => !can(type.create).allowed);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit}>
      <Stack>
        <TextInput
          label="Token name"
          description="What uses it, so it can be told apart later."
          required
          value={tokenName}
          onChange={(event) => setTokenName(event.currentTarget.value)}
          error={fieldError(create.error, "tokenName")}
        />
        <Select
          label="Type"
          description={
            refused.length > 0
              ? `${refused.map((type) => type.label).join(" and ")} tokens need permissions you do not have.`
              : undefined
          }
          data={TOKEN_TYPES.map((option) => ({
            value: option.value,
            label: `${option.label}: ${option.note}`,
            disabled: !can(option.create).allowed,
          }))}
          value={type}
          onChange={(value) => {
            const picked = TOKEN_TYPES.find((option) => option.value === value);
            if (picked) setType(picked.value);
          }}
          allowDeselect={false}
          error={fieldError(create.error, "type")}
        />
        {!admin && (
          <>
            <Switch
              label="All projects, including those created later"
              checked={allProjects}
              onChange={(event) => setAllProjects(event.currentTarget.checked)}
            />
            {!allProjects && (
              <MultiSelect
                label="Projects"
                placeholder={pickHint(chosen, "Pick the projects the token may read")}
                required
                searchable
                data={(projects.data?.projects ?? []).map((project) => ({
                  value: project.id,
                  label: project.name,
                }))}
                value={chosen}
                onChange={setChosen}
                error={fieldError(create.error, "projects")}
              />
            )}
            <Select
              label="Environment"
              description="An SDK token sees flags as they are in one environment."
              required
              data={(environments.data?.environments ?? []).map((candidate) => candidate.name)}
              value={environment ?? null}
              onChange={setPicked}
              error={fieldError(create.error, "environment")}
            />
          </>
        )}
        <FormError error={create.error} inline={["tokenName", "type", "projects", "environment"]} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending} disabled={allowed.length === 0}>
            Create token
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
