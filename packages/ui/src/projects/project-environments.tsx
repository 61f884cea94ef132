import { Alert, Badge, Button, Group, Modal, Stack, Text } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client";
import type { Verdict } from "../auth/session";
import { GuardedSection } from "../components/guarded-section";
import { GuardedSwitch } from "../components/guarded-switch";
import { describeFailure, notifyDone } from "../components/notify";
import { queryKeys } from "../query-keys";
import { type Project, useEnvironments } from "./queries";

/** Which environments the project uses: its flags have a state and strategies in each. */
export function ProjectEnvironments({ project, verdict }: { project: Project; verdict: Verdict }) {
  const client = useQueryClient();
  const environments = useEnvironments();
  const [leaving, setLeaving] = useState<string | null>(null);
  const used = new Set(project.environments.map((env) => env.environment));
  const path = { projectId: project.id };
  const changed = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.projects.detail(project.id) }),
      client.invalidateQueries({ queryKey: queryKeys.environments.list() }),
    ]);
  const add = useMutation({
    mutationFn: (environment: string) =>
      unwrap(
        api.POST("/api/admin/projects/{projectId}/environments", {
          params: { path },
          body: { environment },
        }),
      ),
    onSuccess: async (_, environment) => {
      await changed();
      notifyDone(`${project.name} now uses ${environment}`);
    },
  });
  const remove = useMutation({
    mutationFn: (environment: string) =>
      unwrap(
        api.DELETE("/api/admin/projects/{projectId}/environments/{environment}", {
          params: { path: { ...path, environment } },
        }),
      ),
    meta: { quiet: true },
    onSuccess: async (_, environment) => {
      setLeaving(null);
      await changed();
      notifyDone(`${project.name} no longer uses ${environment}`);
    },
  });
  const close = () => {
    remove.reset();
    setLeaving(null);
  };

  return (
    <GuardedSection legend="Environments" verdict={verdict}>
      <Stack gap="xs">
        {(environments.data?.environments ?? []).map((env) => (
          <Group key={env.name} justify="space-between">
            <Group gap="xs">
              <Text size="sm" fw={600}>
                {env.name}
              </Text>
              <Badge size="sm" variant="light" color={env.type === "production" ? "red" : "gray"}>
                {env.type}
              </Badge>
              {!env.enabled && (
                <Badge size="sm" variant="outline" color="gray">
                  disabled
                </Badge>
              )}
            </Group>
            <GuardedSwitch
              verdict={verdict}
              aria-label={`Use ${env.name} in ${project.name}`}
              checked={used.has(env.name)}
              disabled={add.isPending || remove.isPending}
              onChange={(event) =>
                event.currentTarget.checked ? add.mutate(env.name) : setLeaving(env.name)
              }
            />
          </Group>
        ))}
      </Stack>
      <Modal opened={leaving !== null} onClose={close} title={`Stop using ${leaving} in ${project.name}?`}>
        <Stack>
          <Text>
            Every flag of the project loses its state and strategies in {leaving}. Adding the environment
            again starts them afresh, switched off.
          </Text>
          {remove.isError && (
            <Alert color="red" role="alert" title="Not done">
              {describeFailure(remove.error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => leaving && remove.mutate(leaving)}>
              Stop using {leaving}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </GuardedSection>
  );
}
