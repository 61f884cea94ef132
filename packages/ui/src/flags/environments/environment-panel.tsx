import { Badge, Button, Divider, Group, Modal, Paper, Stack, Text, Title } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../../api/client";
import { useChangeGate } from "../../change-requests/use-change-gate";
import { ConfirmButton } from "../../components/confirm-button";
import { GuardedButton } from "../../components/guarded-button";
import { GuardedSwitch } from "../../components/guarded-switch";
import { notifyDone } from "../../components/notify";
import { RelativeTime } from "../../components/relative-time";
import { queryKeys } from "../../query-keys";
import { SwitchedOffBanner } from "../../release-plans/plans/banners";
import { EnvironmentSafeguardSection, ReleasePlanSection } from "../../release-plans/plans/plan-section";
import { useEnvironmentSafeguards } from "../../release-plans/queries";
import { useFlagCan } from "../permissions";
import {
  type Flag,
  type FlagEnvironment,
  type FlagPlace,
  type Strategy,
  type StrategyDefinition,
  useFlagChanged,
  useSegments,
} from "../queries";
import { strategyPayload } from "../strategies/strategy-draft";
import { StrategyEditor, strategyLabel } from "../strategies/strategy-editor";
import { StrategyCard } from "./strategy-card";
import { StrategyList } from "./strategy-list";

const STRATEGIES =
  "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies" as const;

/** The flag in one environment: whether it is on, and the strategies that decide for whom. */
export function EnvironmentPanel({
  flag,
  environment,
  definitions,
  defaultStickiness,
}: {
  flag: Flag;
  environment: FlagEnvironment;
  definitions: StrategyDefinition[];
  defaultStickiness: string;
}) {
  const place: FlagPlace = { projectId: flag.project, featureName: flag.name };
  const name = environment.name;
  const path = { ...place, environment: name };
  const can = useFlagCan(flag);
  const client = useQueryClient();
  const flagChanged = useFlagChanged(place);
  const segments = useSegments();
  const safeguards = useEnvironmentSafeguards(path);
  const gate = useChangeGate(flag.project);
  const reviewed = gate.requiresRequest(name);
  const [editing, setEditing] = useState<{ strategy?: Strategy } | undefined>();
  const [askingToActivate, setAskingToActivate] = useState(false);
  const definitionOf = (strategy: Strategy) =>
    definitions.find((definition) => definition.name === strategy.name);
  const label = (strategy: Strategy) => strategyLabel(strategy, definitionOf(strategy));

  // The flag's view changes at once and goes back if the service refuses.
  const optimistic = async (edit: (environment: FlagEnvironment) => FlagEnvironment) => {
    const key = queryKeys.flags.detail(place.projectId, place.featureName);
    await client.cancelQueries({ queryKey: key });
    const previous = client.getQueryData<Flag>(key);
    if (previous) {
      client.setQueryData<Flag>(key, {
        ...previous,
        environments: previous.environments.map((candidate) =>
          candidate.name === name ? edit(candidate) : candidate,
        ),
      });
    }
    return { previous };
  };
  const rollBack = (
    _error: unknown,
    _variables: unknown,
    context: { previous: Flag | undefined } | undefined,
  ) => {
    if (context?.previous)
      client.setQueryData(queryKeys.flags.detail(place.projectId, place.featureName), context.previous);
  };

  // A change that goes to a draft leaves the flag as it is: nothing to show before it is applied.
  const toggle = useMutation({
    mutationFn: ({ on, activate }: { on: boolean; activate?: boolean }) => {
      const options = { params: { path, query: { shouldActivateDisabledStrategies: activate } } };
      return gate.send(
        name,
        {
          feature: flag.name,
          action: "updateEnabled",
          payload: {
            enabled: on,
            ...(activate === undefined ? {} : { shouldActivateDisabledStrategies: activate }),
          },
        },
        () =>
          unwrap(
            on
              ? api.POST(
                  "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/on",
                  options,
                )
              : api.POST(
                  "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/off",
                  options,
                ),
          ),
      );
    },
    onMutate: ({ on }) =>
      reviewed ? { previous: undefined } : optimistic((current) => ({ ...current, enabled: on })),
    onError: rollBack,
    onSettled: flagChanged,
  });

  const reorder = useMutation({
    mutationFn: (order: Strategy[]) => {
      const body = order.map((strategy, sortOrder) => ({ id: strategy.id, sortOrder }));
      return gate.send(name, { feature: flag.name, action: "reorderStrategy", payload: body }, () =>
        unwrap(api.POST(`${STRATEGIES}/set-sort-order`, { params: { path }, body })),
      );
    },
    onMutate: (order) =>
      reviewed
        ? { previous: undefined }
        : optimistic((current) => ({
            ...current,
            strategies: order.map((strategy, sortOrder) => ({ ...strategy, sortOrder })),
          })),
    onError: rollBack,
    onSettled: flagChanged,
  });

  const setDisabled = useMutation({
    mutationFn: ({ strategy, disabled }: { strategy: Strategy; disabled: boolean }) =>
      gate.send(
        name,
        { feature: flag.name, action: "updateStrategy", payload: { ...strategyPayload(strategy), disabled } },
        () =>
          unwrap(
            api.PATCH(`${STRATEGIES}/{strategyId}`, {
              params: { path: { ...path, strategyId: strategy.id } },
              body: [{ op: "replace", path: "/disabled", value: disabled }],
            }),
          ),
      ),
    onSuccess: async (outcome, { strategy, disabled }) => {
      await flagChanged();
      if (!outcome.drafted) notifyDone(`${label(strategy)} ${disabled ? "disabled" : "enabled"} in ${name}.`);
    },
  });

  const remove = async (strategy: Strategy) => {
    const outcome = await gate.send(
      name,
      {
        feature: flag.name,
        action: "deleteStrategy",
        payload: { id: strategy.id, name: strategy.name, title: strategy.title, disabled: strategy.disabled },
      },
      () =>
        unwrap(
          api.DELETE(`${STRATEGIES}/{strategyId}`, {
            params: { path: { ...path, strategyId: strategy.id } },
          }),
        ),
    );
    await flagChanged();
    if (!outcome.drafted) notifyDone(`${label(strategy)} removed from ${name}.`);
  };

  const switchTo = (on: boolean) => {
    const { strategies } = environment;
    // As the reference asks: switching on where every strategy is disabled would either
    // wake them or add a rollout to everyone next to them.
    if (on && strategies.length > 0 && strategies.every((strategy) => strategy.disabled))
      setAskingToActivate(true);
    else toggle.mutate({ on });
  };

  const updateVerdict = can("UPDATE_FEATURE_STRATEGY", name);
  const strategies = environment.strategies;

  return (
    <Paper withBorder p="md" component="section" aria-labelledby={`environment-${name}`}>
      <Stack gap="sm">
        <Group justify="space-between" align="center">
          <Group gap="sm" align="center">
            <Title order={3} id={`environment-${name}`}>
              {name}
            </Title>
            <Badge variant="light" color={environment.type === "production" ? "red" : "gray"}>
              {environment.type}
            </Badge>
            <Text size="sm" c="dimmed">
              Last seen <RelativeTime value={environment.lastSeenAt} empty="never" />
            </Text>
            {reviewed && (
              <Badge
                variant="outline"
                color="violet"
                title="Your changes here are added to a draft change request"
              >
                Change requests
              </Badge>
            )}
          </Group>
          <GuardedSwitch
            verdict={can("UPDATE_FEATURE_ENVIRONMENT", name)}
            label={`Enabled in ${name}`}
            checked={environment.enabled}
            onChange={(event) => switchTo(event.currentTarget.checked)}
            size="md"
          />
        </Group>
        <SwitchedOffBanner
          environment={name}
          enabled={environment.enabled}
          safeguard={safeguards.data?.[0]}
        />

        {strategies.length === 0 ? (
          <Text size="sm" c="dimmed">
            No strategies here. Switching the flag on adds a gradual rollout to everyone.
          </Text>
        ) : (
          <StrategyList
            strategies={strategies}
            describe={label}
            disabledReason={updateVerdict.allowed ? undefined : updateVerdict.reason}
            onReorder={(order) => reorder.mutate(order)}
            renderCard={(strategy, handle) => (
              <StrategyCard
                strategy={strategy}
                definition={definitionOf(strategy)}
                segments={segments.data?.segments ?? []}
                handle={handle}
                actions={
                  <>
                    <GuardedButton
                      verdict={updateVerdict}
                      variant="subtle"
                      size="compact-sm"
                      aria-label={`Edit ${label(strategy)}`}
                      onClick={() => setEditing({ strategy })}
                    >
                      Edit
                    </GuardedButton>
                    <GuardedButton
                      verdict={updateVerdict}
                      variant="subtle"
                      size="compact-sm"
                      aria-label={`${strategy.disabled ? "Enable" : "Disable"} ${label(strategy)}`}
                      loading={setDisabled.isPending && setDisabled.variables?.strategy.id === strategy.id}
                      onClick={() => setDisabled.mutate({ strategy, disabled: !strategy.disabled })}
                    >
                      {strategy.disabled ? "Enable" : "Disable"}
                    </GuardedButton>
                    <ConfirmButton
                      verdict={can("DELETE_FEATURE_STRATEGY", name)}
                      aria-label={`Delete ${label(strategy)}`}
                      title={`Delete ${label(strategy)}?`}
                      message={
                        reviewed
                          ? `Deleting the strategy from ${flag.name} in ${name} is added to your draft change request; it is deleted when the request is applied.`
                          : `The strategy is removed from ${flag.name} in ${name}. Its history stays in the event log.`
                      }
                      confirmLabel={reviewed ? "Add to draft" : "Delete strategy"}
                      onConfirm={() => remove(strategy)}
                    >
                      Delete
                    </ConfirmButton>
                  </>
                }
              />
            )}
          />
        )}

        <Group>
          <GuardedButton
            verdict={can("CREATE_FEATURE_STRATEGY", name)}
            variant="light"
            leftSection={<IconPlus size={16} />}
            aria-label={`Add a strategy in ${name}`}
            onClick={() => setEditing({})}
          >
            Add strategy
          </GuardedButton>
        </Group>
        <Divider />
        <ReleasePlanSection flag={flag} environment={name} definitions={definitions} />
        <Divider />
        <EnvironmentSafeguardSection flag={flag} environment={name} />
      </Stack>

      {editing && (
        <StrategyEditor
          place={place}
          environment={name}
          strategy={editing.strategy}
          defaultStickiness={defaultStickiness}
          onClose={() => setEditing(undefined)}
        />
      )}
      <Modal
        opened={askingToActivate}
        onClose={() => setAskingToActivate(false)}
        title={`Every strategy in ${name} is disabled`}
      >
        <Stack>
          <Text>
            Switched on as it is, the flag would get a new gradual rollout to everyone in {name}. Enable the
            disabled strategies instead?
          </Text>
          <Group justify="flex-end">
            <Button
              variant="default"
              onClick={() => {
                setAskingToActivate(false);
                toggle.mutate({ on: true, activate: false });
              }}
            >
              Add a rollout to everyone
            </Button>
            <Button
              onClick={() => {
                setAskingToActivate(false);
                toggle.mutate({ on: true, activate: true });
              }}
            >
              Enable the disabled strategies
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
