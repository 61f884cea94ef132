import {
  Anchor,
  Button,
  CloseButton,
  Group,
  Modal,
  MultiSelect,
  Radio,
  Select,
  Stack,
  Text,
} from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { api, unwrap } from "../../api/client";
import { useChangeGate } from "../../change-requests/use-change-gate";
import { FormError } from "../../components/form-error";
import { GuardedButton } from "../../components/guarded-button";
import { notifyDone } from "../../components/notify";
import { pickHint } from "../../components/pick-hint";
import { queryKeys } from "../../query-keys";
import { useFlagCan } from "../permissions";
import { type Flag, useFlag, useFlagChanged } from "../queries";

const flagPath = (project: string, name: string) =>
  `/projects/${encodeURIComponent(project)}/features/${encodeURIComponent(name)}`;

/**
 * The flags this one depends on (it is on only where its parent is enabled, or disabled, and
 * gives one of the variants named) and the flags that depend on it.
 */
export function FlagDependencies({ flag }: { flag: Flag }) {
  const place = { projectId: flag.project, featureName: flag.name };
  const can = useFlagCan(flag);
  const verdict = can("UPDATE_FEATURE_DEPENDENCY");
  const flagChanged = useFlagChanged(place);
  const gate = useChangeGate(flag.project);
  const [adding, setAdding] = useState(false);
  const remove = useMutation({
    mutationFn: (parent: string) =>
      gate.sendFlagWide(
        { feature: flag.name, action: "deleteDependency", payload: { feature: parent } },
        () =>
          unwrap(
            api.DELETE("/api/admin/projects/{projectId}/features/{featureName}/dependencies/{parent}", {
              params: { path: { ...place, parent } },
            }),
          ),
      ),
    onSuccess: async (outcome, parent) => {
      await flagChanged();
      if (!outcome.drafted) notifyDone(`${flag.name} no longer depends on ${parent}.`);
    },
  });

  return (
    <Stack gap={4}>
      {flag.dependencies.map((parent) => (
        <Group key={parent.feature} gap={6} wrap="nowrap">
          <Text size="sm">
            Needs{" "}
            <Anchor component={Link} to={flagPath(flag.project, parent.feature)}>
              {parent.feature}
            </Anchor>{" "}
            {parent.enabled ? "enabled" : "disabled"}
            {parent.variants.length > 0 && ` with variant ${parent.variants.join(" or ")}`}
          </Text>
          {verdict.allowed && (
            <CloseButton
              size="sm"
              aria-label={`Remove the dependency on ${parent.feature}`}
              onClick={() => remove.mutate(parent.feature)}
            />
          )}
        </Group>
      ))}
      {flag.children.length > 0 && (
        <Text size="sm">
          Needed by{" "}
          {flag.children.map((child, index) => (
            <span key={child}>
              {index > 0 && ", "}
              <Anchor component={Link} to={flagPath(flag.project, child)}>
                {child}
              </Anchor>
            </span>
          ))}
        </Text>
      )}
      {flag.dependencies.length === 0 && flag.children.length === 0 && (
        <Text size="sm" c="dimmed">
          None
        </Text>
      )}
      {flag.dependencies.length === 0 && (
        <Group>
          <GuardedButton
            verdict={verdict}
            variant="subtle"
            size="compact-sm"
            leftSection={<IconPlus size={14} />}
            onClick={() => setAdding(true)}
          >
            Add parent flag
          </GuardedButton>
        </Group>
      )}
      {adding && <AddParentModal flag={flag} onClose={() => setAdding(false)} />}
    </Stack>
  );
}

function AddParentModal({ flag, onClose }: { flag: Flag; onClose: () => void }) {
  const place = { projectId: flag.project, featureName: flag.name };
  const flagChanged = useFlagChanged(place);
  const gate = useChangeGate(flag.project);
  const [parent, setParent] = useState<string | null>(null);
  const [enabled, setEnabled] = useState(true);
  const [variants, setVariants] = useState<string[]>([]);
  const candidates = useQuery({
    // Not the project page's ["project", id, "flags", page]: that cache holds search pages.
    queryKey: queryKeys.projects.flagNames(flag.project),
    queryFn: () =>
      unwrap(
        api.GET("/api/admin/projects/{projectId}/features", {
          params: { path: { projectId: flag.project } },
        }),
      ),
  });
  const parentFlag = useFlag({ projectId: flag.project, featureName: parent ?? "" }, parent !== null);
  const parentVariants = parent
    ? [
        ...new Set(
          parentFlag.data?.environments.flatMap((environment) => environment.variants.map((v) => v.name)),
        ),
      ]
    : [];
  // A flag cannot depend on itself or on a flag that depends on it.
  const choices = (candidates.data?.features ?? [])
    .map((candidate) => candidate.name)
    .filter((name) => name !== flag.name && !flag.children.includes(name));

  const add = useMutation({
    meta: { quiet: true },
    mutationFn: () => {
      const body = { feature: parent ?? "", enabled, variants: enabled ? variants : [] };
      return gate.sendFlagWide({ feature: flag.name, action: "addDependency", payload: body }, () =>
        unwrap(
          api.POST("/api/admin/projects/{projectId}/features/{featureName}/dependencies", {
            params: { path: place },
            body,
          }),
        ),
      );
    },
    onSuccess: async (outcome) => {
      await flagChanged();
      if (!outcome.drafted) notifyDone(`${flag.name} now depends on ${parent}.`);
      onClose();
    },
  });

  return (
    <Modal opened onClose={onClose} title={`Make ${flag.name} depend on another flag`}>
      <Stack>
        <Select
          label="Parent flag"
          description={`A flag of ${flag.project}; ${flag.name} is only on where the parent is as chosen below`}
          data={choices}
          value={parent}
          onChange={(next) => {
            setParent(next);
            setVariants([]);
          }}
          searchable
          nothingFoundMessage="No flag by that name in this project"
        />
        <Radio.Group
          label="The parent must be"
          value={enabled ? "enabled" : "disabled"}
          onChange={(next) => setEnabled(next === "enabled")}
        >
          <Group mt="xs">
            <Radio value="enabled" label="Enabled" />
            <Radio value="disabled" label="Disabled" />
          </Group>
        </Radio.Group>
        {enabled && parentVariants.length > 0 && (
          <MultiSelect
            label="With one of these variants"
            description="Optional; none chosen means any variant"
            placeholder={pickHint(variants, "Any variant")}
            data={parentVariants}
            value={variants}
            onChange={setVariants}
            clearable
          />
        )}
        <FormError error={add.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button loading={add.isPending} disabled={!parent} onClick={() => add.mutate()}>
            {gate.flagWideEnvironment() ? "Add to draft" : "Add dependency"}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
