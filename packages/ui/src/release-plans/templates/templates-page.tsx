import { Anchor, Badge, Group, List, Stack, Switch, Table, Text } from "@mantine/core";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { api, unwrap } from "../../api/client";
import { useCan } from "../../auth/session";
import { ConfirmButton } from "../../components/confirm-button";
import { ErrorPanel } from "../../components/error-panel";
import { GuardedButton } from "../../components/guarded-button";
import { PageHeader } from "../../components/page-header";
import { plural } from "../../components/plural";
import { RelativeTime } from "../../components/relative-time";
import { ActionsHeader, DeleteButton, EditButton, RowActions } from "../../components/row-actions";
import { useRemove } from "../../components/use-remove";
import { queryKeys } from "../../query-keys";
import { type Template, useTemplates } from "../queries";
import { TEMPLATES_PATH, templatePath } from "./paths";

/** How a milestone hands over, in a few words. */
const handOver = (minutes: number | undefined) => (minutes ? `, then ${minutes} min` : "");

/** The release templates: the milestones a release plan added to a flag goes through. */
export default function TemplatesPage() {
  const [showArchived, setShowArchived] = useState(false);
  const templates = useTemplates(showArchived);
  const can = useCan();
  const navigate = useNavigate();
  const key = queryKeys.releaseTemplates.all();
  const path = (template: Template) => ({ params: { path: { templateId: template.id } } });
  const archive = useRemove(
    key,
    (template: Template) =>
      unwrap(api.POST("/api/admin/release-plan-templates/archive/{templateId}", path(template))),
    (template) => `Release template ${template.name} archived.`,
  );
  const remove = useRemove(
    key,
    (template: Template) =>
      unwrap(api.DELETE("/api/admin/release-plan-templates/{templateId}", path(template))),
    (template) => `Release template ${template.name} deleted.`,
  );
  const rows = templates.data ?? [];

  return (
    <>
      <PageHeader
        title="Release templates"
        description="The milestones a release goes through, from a few users to everyone. Add one to a flag's environment as a release plan, from the flag's page."
        actions={
          <GuardedButton
            verdict={can("RELEASE_PLAN_TEMPLATE_CREATE")}
            onClick={() => navigate(`${TEMPLATES_PATH}/new`)}
          >
            New template
          </GuardedButton>
        }
      />
      <Group mb="sm">
        <Switch
          label="Show archived templates"
          checked={showArchived}
          onChange={(event) => setShowArchived(event.currentTarget.checked)}
        />
      </Group>
      {templates.isError && <ErrorPanel error={templates.error} />}
      <Table striped aria-label="Release templates" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Milestones</Table.Th>
            <Table.Th>Created</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((template) => (
            <Table.Tr key={template.id}>
              <Table.Td>
                <Stack gap={0}>
                  <Group gap="xs">
                    <Anchor component={Link} to={templatePath(template.id)} fw={600}>
                      {template.name}
                    </Anchor>
                    {template.archivedAt && (
                      <Badge color="gray" variant="light">
                        Archived
                      </Badge>
                    )}
                  </Group>
                  {template.description && (
                    <Text size="xs" c="dimmed">
                      {template.description}
                    </Text>
                  )}
                </Stack>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{plural(template.milestones.length, "milestone")}</Text>
                <List size="xs" c="dimmed" aria-label={`Milestones of ${template.name}`}>
                  {[...template.milestones]
                    .sort((a, b) => a.sortOrder - b.sortOrder)
                    .map((milestone) => (
                      <List.Item key={milestone.id}>
                        {milestone.name}
                        {handOver(milestone.transitionCondition?.intervalMinutes)}
                      </List.Item>
                    ))}
                </List>
              </Table.Td>
              <Table.Td>
                <RelativeTime value={template.createdAt} />
              </Table.Td>
              <Table.Td>
                <RowActions>
                  {!template.archivedAt && (
                    <>
                      <EditButton
                        name={template.name}
                        verdict={can("RELEASE_PLAN_TEMPLATE_UPDATE")}
                        onClick={() => navigate(templatePath(template.id))}
                      />
                      <ConfirmButton
                        verdict={can("RELEASE_PLAN_TEMPLATE_UPDATE")}
                        aria-label={`Archive ${template.name}`}
                        title={`Archive release template ${template.name}?`}
                        message="No new plan can be made from it. Plans already made from it keep their milestones."
                        confirmLabel="Archive template"
                        onConfirm={() => archive(template)}
                      >
                        Archive
                      </ConfirmButton>
                    </>
                  )}
                  <DeleteButton
                    name={template.name}
                    what="template"
                    title={`Delete release template ${template.name}?`}
                    verdict={can("RELEASE_PLAN_TEMPLATE_DELETE")}
                    message="The template is deleted. Plans already made from it keep their milestones."
                    onConfirm={() => remove(template)}
                  />
                </RowActions>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {templates.isSuccess && rows.length === 0 && (
        <Text c="dimmed" mt="sm">
          No release templates yet. Make one to add release plans to flags.
        </Text>
      )}
    </>
  );
}
