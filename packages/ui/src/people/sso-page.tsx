import {
  Button,
  Code,
  CopyButton,
  Group,
  Loader,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
} from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { FormError, fieldError } from "../components/form-error";
import { GuardedButton } from "../components/guarded-button";
import { GuardedSection } from "../components/guarded-section";
import { notifyDone } from "../components/notify";
import { PageHeader } from "../components/page-header";
import { queryKeys } from "../query-keys";
import { type RootRole, useUsers } from "./queries";

const fetchSettings = () => unwrap(api.GET("/api/admin/auth/oidc/settings"));
type Settings = Awaited<ReturnType<typeof fetchSettings>>;

const ALGORITHMS = ["RS256", "RS384", "RS512"] as const;
const isAlgorithm = (value: string): value is Settings["idTokenSigningAlgorithm"] =>
  (ALGORITHMS as readonly string[]).includes(value);

export default function SsoPage() {
  const settings = useQuery({ queryKey: queryKeys.sso.settings(), queryFn: fetchSettings });
  const users = useUsers();
  if (settings.isError) return <ErrorPanel error={settings.error} />;
  if (users.isError) return <ErrorPanel error={users.error} />;
  return (
    <>
      <PageHeader
        title="Single sign-on"
        description="Let people log in with your OpenID Connect provider (Okta, Entra ID, Keycloak, Google…)."
      />
      {settings.data && users.data ? (
        <SsoForm settings={settings.data} rootRoles={users.data.rootRoles} />
      ) : (
        <Loader aria-label="Loading" />
      )}
    </>
  );
}

function SsoForm({ settings, rootRoles }: { settings: Settings; rootRoles: readonly RootRole[] }) {
  const client = useQueryClient();
  const admin = useCan()("ADMIN");
  const [enabled, setEnabled] = useState(settings.enabled);
  const [discoverUrl, setDiscoverUrl] = useState(settings.discoverUrl);
  const [clientId, setClientId] = useState(settings.clientId);
  // The service shows a stored secret masked; sending the mask back keeps it, so only a typed one is sent.
  const [secret, setSecret] = useState(settings.secret);
  const [autoCreate, setAutoCreate] = useState(settings.autoCreate);
  const [assumeEmailVerified, setAssumeEmailVerified] = useState(settings.assumeEmailVerified);
  const initialRole =
    settings.defaultRootRoleId ?? rootRoles.find((role) => role.name === settings.defaultRootRole)?.id;
  const [defaultRootRoleId, setDefaultRootRoleId] = useState(
    initialRole === undefined ? null : String(initialRole),
  );
  const [emailDomains, setEmailDomains] = useState(settings.emailDomains);
  const [acrValues, setAcrValues] = useState(settings.acrValues);
  const [algorithm, setAlgorithm] = useState(settings.idTokenSigningAlgorithm);
  const callback = `${window.location.origin}/auth/oidc/callback`;

  const save = useMutation({
    meta: { quiet: true },
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/auth/oidc/settings", {
          body: {
            enabled,
            discoverUrl,
            clientId,
            ...(secret === settings.secret ? {} : { secret }),
            autoCreate,
            assumeEmailVerified,
            emailDomains,
            acrValues,
            idTokenSigningAlgorithm: algorithm,
            ...(defaultRootRoleId ? { defaultRootRoleId: Number(defaultRootRoleId) } : {}),
          },
        }),
      ),
    onSuccess: (saved) => {
      client.setQueryData(queryKeys.sso.settings(), saved);
      notifyDone(saved.enabled ? "Single sign-on saved and on." : "Single sign-on saved; it is off.");
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <form onSubmit={submit} aria-label="OpenID Connect settings">
      <Stack maw={720}>
        <GuardedSection legend="OpenID Connect" verdict={admin}>
          <Stack>
            <Switch
              label="Enabled"
              description="Offer the single sign-on button on the login page."
              checked={enabled}
              onChange={(event) => setEnabled(event.currentTarget.checked)}
            />
            <TextInput
              label="Discover URL"
              description="The provider's issuer URL, or its …/.well-known/openid-configuration document."
              placeholder="https://login.example.com/realms/main"
              required={enabled}
              value={discoverUrl}
              onChange={(event) => setDiscoverUrl(event.currentTarget.value)}
              error={fieldError(save.error, "discoverUrl")}
            />
            <TextInput
              label="Client ID"
              required={enabled}
              value={clientId}
              onChange={(event) => setClientId(event.currentTarget.value)}
              error={fieldError(save.error, "clientId")}
            />
            <PasswordInput
              label="Client secret"
              description={
                settings.secret
                  ? "A secret is stored and never shown: leave this as it is to keep it, or type a new one."
                  : "Not set yet."
              }
              autoComplete="off"
              value={secret}
              onChange={(event) => setSecret(event.currentTarget.value)}
              error={fieldError(save.error, "secret")}
            />
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                Redirect URI
              </Text>
              <Text size="xs" c="dimmed">
                Register this at the provider as where it sends people back.
              </Text>
              <Group gap="xs">
                <Code>{callback}</Code>
                <CopyButton value={callback}>
                  {({ copied, copy }) => (
                    <Button size="compact-xs" variant="light" onClick={copy}>
                      {copied ? "Copied" : "Copy redirect URI"}
                    </Button>
                  )}
                </CopyButton>
              </Group>
            </Stack>
            <Switch
              label="Create users at their first sign-in"
              description="Otherwise only people who already have a user here can sign in."
              checked={autoCreate}
              onChange={(event) => setAutoCreate(event.currentTarget.checked)}
            />
            <Switch
              label="Trust emails the provider does not mark as verified"
              description="Only when your provider verifies every address but sends no email_verified claim: otherwise anyone who registers an address there could sign in as the person who has it here."
              checked={assumeEmailVerified}
              onChange={(event) => setAssumeEmailVerified(event.currentTarget.checked)}
            />
            <Select
              label="Default root role"
              description="The root role of users created at sign-in."
              data={rootRoles.map((role) => ({ value: String(role.id), label: role.name }))}
              value={defaultRootRoleId}
              onChange={setDefaultRootRoleId}
              allowDeselect={false}
              error={fieldError(save.error, "defaultRootRoleId")}
            />
            <TextInput
              label="Email domains"
              description="Comma-separated domains users may be created for, such as example.com. Empty: any."
              value={emailDomains}
              onChange={(event) => setEmailDomains(event.currentTarget.value)}
              error={fieldError(save.error, "emailDomains")}
            />
            <TextInput
              label="ACR values"
              description="Space-separated authentication context classes to ask the provider for; usually empty."
              value={acrValues}
              onChange={(event) => setAcrValues(event.currentTarget.value)}
              error={fieldError(save.error, "acrValues")}
            />
            <Select
              label="ID token signing algorithm"
              data={[...ALGORITHMS]}
              value={algorithm}
              onChange={(value) => value && isAlgorithm(value) && setAlgorithm(value)}
              allowDeselect={false}
            />
          </Stack>
        </GuardedSection>
        <FormError
          error={save.error}
          inline={["discoverUrl", "clientId", "secret", "defaultRootRoleId", "emailDomains", "acrValues"]}
        />
        <Group justify="flex-end">
          <GuardedButton verdict={admin} type="submit" loading={save.isPending}>
            Save settings
          </GuardedButton>
        </Group>
      </Stack>
    </form>
  );
}
