import { Alert, Button, Center, Divider, Paper, PasswordInput, Stack, TextInput, Title } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { ApiError, api, unwrap } from "../api/client";
import { describeFailure } from "../components/notify";
import { queryKeys } from "../query-keys";
import { useMe } from "./session";

// Only a path on this server is a place to return to: a crafted link cannot send someone away.
const safeNext = (next: string | null) =>
  next?.startsWith("/") && !next.startsWith("//") ? next : "/projects";

/** The ways in besides a password, as the service lists them when asked without a login. */
function useLoginOptions() {
  return useQuery({
    queryKey: queryKeys.session.loginOptions(),
    queryFn: async () => {
      try {
        await unwrap(api.GET("/api/admin/user"));
        return [];
      } catch (error) {
        return (error instanceof ApiError && error.body?.options) || [];
      }
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function LoginPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get("next"));
  const me = useMe();
  const options = useLoginOptions();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const login = useMutation({
    mutationFn: () => unwrap(api.POST("/auth/simple/login", { body: { username, password } })),
    // Shown on the form itself; not a notification.
    meta: { quiet: true },
    onSuccess: async () => {
      client.clear();
      await client.fetchQuery({
        queryKey: queryKeys.session.me(),
        queryFn: () => unwrap(api.GET("/api/admin/user")),
      });
      navigate(next, { replace: true });
    },
  });

  // Someone who arrives logged in goes on; someone who just logged in is taken there above.
  if (me.data && login.isIdle) return <Navigate to={next} replace />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate();
  };
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={380} component="main">
        <form onSubmit={submit} aria-label="Log in">
          <Stack>
            <Title order={2}>Log in to Signalbox</Title>
            {login.isError && (
              <Alert color="red" role="alert">
                {describeFailure(login.error)}
              </Alert>
            )}
            <TextInput
              label="Username or email"
              autoComplete="username"
              required
              value={username}
              onChange={(event) => setUsername(event.currentTarget.value)}
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
            />
            {/* Once logged in, spinning until the next screen replaces this one: not blank meanwhile. */}
            <Button type="submit" loading={login.isPending || login.isSuccess}>
              Log in
            </Button>
            {(options.data ?? []).map((option) => (
              <Stack key={option.type} gap="xs">
                <Divider label="or" />
                <Button
                  component="a"
                  variant="default"
                  href={`${option.path}?redirect=${encodeURIComponent(next)}`}
                >
                  {option.message}
                </Button>
              </Stack>
            ))}
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
