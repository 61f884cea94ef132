import { Alert, Anchor, Button, Group, List, Modal, Select, Stack, Text } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { FormError } from "../../components/form-error";
import { type Template, useTemplates } from "../queries";
import { TEMPLATES_PATH } from "../templates/paths";
import { minutesText } from "./countdown";

/**
 * Picks the template a flag environment's release plan is made from. The plan is a copy of it
 * and serves nothing until one of its milestones is started.
 */
export function AddPlanModal({
  environment,
  reviewed,
  onAdd,
  onClose,
}: {
  environment: string;
  reviewed: boolean;
  onAdd: (template: Template) => Promise<unknown>;
  onClose: () => void;
}) {
  const templates = useTemplates();
  const [chosen, setChosen] = useState<string | null>(null);
  const template = templates.data?.find((candidate) => candidate.id === chosen);
  const add = useMutation({ meta: { quiet: true }, mutationFn: onAdd, onSuccess: onClose });
  const none = templates.isSuccess && templates.data.length === 0;

  return (
    <Modal opened onClose={onClose} title={`Add a release plan in ${environment}`}>
      <Stack>
        {none ? (
          <Alert color="blue" title="No release templates yet">
            A plan is made from a template.{" "}
            <Anchor component={Link} to={TEMPLATES_PATH}>
              Make one under Release templates
            </Anchor>
            .
          </Alert>
        ) : (
          <Select
            label="Template"
            placeholder={templates.isPending ? "Loading the templates…" : "Pick a template"}
            data={(templates.data ?? []).map((candidate) => ({ value: candidate.id, label: candidate.name }))}
            value={chosen}
            onChange={setChosen}
            searchable
            data-autofocus
          />
        )}
        {template && (
          <Stack gap={4}>
            {template.description && <Text size="sm">{template.description}</Text>}
            <List type="ordered" size="sm" aria-label={`Milestones of ${template.name}`}>
              {[...template.milestones]
                .sort((a, b) => a.sortOrder - b.sortOrder)
                .map((milestone) => (
                  <List.Item key={milestone.id}>
                    {milestone.name}
                    {milestone.transitionCondition &&
                      `, advancing after ${minutesText(milestone.transitionCondition.intervalMinutes)}`}
                  </List.Item>
                ))}
            </List>
            <Text size="sm" c="dimmed">
              Nothing changes in {environment} until you start a milestone: starting one replaces the
              strategies there with the milestone's.
            </Text>
          </Stack>
        )}
        <FormError error={add.error ?? templates.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            disabled={!template}
            loading={add.isPending}
            onClick={() => template && add.mutate(template)}
          >
            {reviewed ? "Add to draft" : "Add release plan"}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
