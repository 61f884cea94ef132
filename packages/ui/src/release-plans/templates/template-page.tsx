import { Alert, Anchor, Button, Group, Loader, Stack, Text } from "@mantine/core";
import { IconPlus } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "react-router";
import { api, unwrap } from "../../api/client";
import { useCan } from "../../auth/session";
import { ErrorPanel } from "../../components/error-panel";
import { FormError } from "../../components/form-error";
import { DescriptionField, NameField } from "../../components/form-fields";
import { GuardedButton } from "../../components/guarded-button";
import { GuardedSection } from "../../components/guarded-section";
import { notifyDone } from "../../components/notify";
import { PageHeader } from "../../components/page-header";
import { useCheckedForm } from "../../components/use-checked-form";
import { useFormSave } from "../../components/use-form-save";
import { queryKeys } from "../../query-keys";
import type { Template } from "../queries";
import { MilestoneFieldset } from "./milestone-fieldset";
import { TEMPLATES_PATH } from "./paths";
import {
  milestoneRules,
  move,
  newMilestone,
  type TemplateDraft,
  templateBody,
  templateDraftOf,
} from "./template-draft";

/** A release template to create (`/release-templates/new`) or change (`/release-templates/:templateId`). */
export default function TemplatePage() {
  const { templateId = "new" } = useParams();
  const template = useQuery({
    queryKey: queryKeys.releaseTemplates.detail(templateId),
    queryFn: () =>
      unwrap(api.GET("/api/admin/release-plan-templates/{templateId}", { params: { path: { templateId } } })),
    enabled: templateId !== "new",
  });
  if (templateId === "new") return <TemplateForm />;
  if (template.isPending) return <Loader aria-label="Loading the release template" />;
  if (template.isError) return <ErrorPanel error={template.error} />;
  return <TemplateForm key={template.data.id} template={template.data} />;
}

function TemplateForm({ template }: { template?: Template }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const can = useCan();
  const archived = Boolean(template?.archivedAt);
  const allowed = can(template ? "RELEASE_PLAN_TEMPLATE_UPDATE" : "RELEASE_PLAN_TEMPLATE_CREATE");
  // The service stores changes to an archived template, but no plan is made from it any more.
  const verdict = archived
    ? { allowed: false, reason: "This template is archived: no plan is made from it any more." }
    : allowed;
  const form = useCheckedForm<TemplateDraft>({
    initialValues: templateDraftOf(template),
    validate: {
      name: (name) => (name.trim() === "" ? "Give the template a name" : null),
      milestones: milestoneRules,
    },
  });
  const { mutation: save, submit } = useFormSave(form, {
    save: (draft) => {
      const body = templateBody(draft);
      return template
        ? unwrap(
            api.PUT("/api/admin/release-plan-templates/{templateId}", {
              params: { path: { templateId: template.id } },
              body,
            }),
          )
        : unwrap(api.POST("/api/admin/release-plan-templates", { body }));
    },
    onSaved: async (saved) => {
      await client.invalidateQueries({ queryKey: queryKeys.releaseTemplates.all() });
      notifyDone(
        template ? `Release template ${saved.name} saved.` : `Release template ${saved.name} created.`,
      );
      navigate(TEMPLATES_PATH);
    },
  });
  const milestones = form.values.milestones;

  return (
    <Stack gap="md" maw={960}>
      <Anchor component={Link} to={TEMPLATES_PATH} size="sm">
        ← Release templates
      </Anchor>
      <PageHeader
        title={template ? `Release template ${template.name}` : "New release template"}
        description="The milestones a release goes through, each with the strategies it serves while it runs. A plan added to a flag is a copy: changing the template later changes no plan."
      />
      <form onSubmit={submit} aria-label={template ? "Edit release template" : "New release template"}>
        <Stack gap="md">
          <GuardedSection legend="Template" verdict={verdict}>
            <Stack gap="md">
              <NameField {...form.getInputProps("name")} />
              <DescriptionField {...form.getInputProps("description")} />
            </Stack>
          </GuardedSection>
          <GuardedSection legend="Milestones" verdict={verdict}>
            <Stack gap="md">
              <Text size="sm" c="dimmed">
                Milestones run in this order. One that advances on its own starts the next that many minutes
                after it started, unless a safeguard paused the plan.
              </Text>
              {milestones.map((milestone, index) => (
                <MilestoneFieldset
                  key={milestone.key}
                  form={form}
                  index={index}
                  onMove={(to) => form.setFieldValue("milestones", move(milestones, index, to))}
                  onRemove={() =>
                    form.setFieldValue(
                      "milestones",
                      milestones.filter((_, other) => other !== index),
                    )
                  }
                />
              ))}
              <Group>
                <Button
                  variant="light"
                  leftSection={<IconPlus size={16} />}
                  onClick={() => form.setFieldValue("milestones", [...milestones, newMilestone()])}
                >
                  Add milestone
                </Button>
              </Group>
            </Stack>
          </GuardedSection>
          {form.refused && Object.keys(form.errors).length > 0 && (
            <Alert color="red" role="alert" title="Not saved">
              Some fields need attention: they say what is wrong.
            </Alert>
          )}
          <FormError error={save.error} inline={["name"]} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => navigate(TEMPLATES_PATH)}>
              Cancel
            </Button>
            <GuardedButton verdict={verdict} type="submit" loading={save.isPending}>
              {template ? "Save template" : "Create template"}
            </GuardedButton>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
