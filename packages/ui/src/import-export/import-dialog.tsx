import { Alert, Button, FileInput, Group, List, Select, Stack, Text } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, type paths, unwrap } from "../api/client";
import type { Verdict } from "../auth/session";
import { FormError } from "../components/form-error";
import { GuardedButton } from "../components/guarded-button";
import { notifyDone } from "../components/notify";
import { plural } from "../components/plural";
import { queryKeys } from "../query-keys";

type ImportBody =
  paths["/api/admin/features-batch/validate"]["post"]["requestBody"]["content"]["application/json"];
type ImportData = ImportBody["data"];
type Report = Awaited<ReturnType<typeof validate>>;
type Finding = Report["errors"][number];

const validate = (body: ImportBody) => unwrap(api.POST("/api/admin/features-batch/validate", { body }));

/** A file's text (FileReader: what every browser, and jsdom, has). */
const readText = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error("The file could not be read."));
    reader.readAsText(file);
  });

/** What a chosen file holds: the export's data, or why it is not one. */
export function parseImportFile(text: string): { data: ImportData } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problem: `The file is not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    !Array.isArray((parsed as { features?: unknown }).features) ||
    !Array.isArray((parsed as { featureStrategies?: unknown }).featureStrategies)
  )
    return { problem: "The file is not an export: it has no features and featureStrategies lists." };
  const data = parsed as ImportData;
  return { data: { ...data, tagTypes: data.tagTypes ?? [] } };
}

/** Whether the validated file may be imported, and if not, why: the service would refuse it. */
export function applyVerdict(report: Report | undefined): Verdict {
  if (!report) return { allowed: false, reason: "Validate the file first." };
  if (report.errors.length > 0)
    return {
      allowed: false,
      reason: "The file has errors: the service would refuse it. Fix them and validate again.",
    };
  if (report.permissions.length > 0)
    return { allowed: false, reason: "You lack permissions this import needs: the service would refuse it." };
  return { allowed: true, reason: undefined };
}

function Findings({
  title,
  color,
  findings,
  role,
}: {
  title: string;
  color: string;
  findings: Finding[];
  role?: "alert";
}) {
  if (findings.length === 0) return null;
  return (
    <Alert color={color} title={title} role={role}>
      <Stack gap="xs">
        {findings.map((finding) => (
          <div key={finding.message}>
            <Text size="sm">{finding.message}</Text>
            {finding.affectedItems.length > 0 && (
              <List size="sm">
                {finding.affectedItems.map((item) => (
                  <List.Item key={item}>{item}</List.Item>
                ))}
              </List>
            )}
          </div>
        ))}
      </Stack>
    </Alert>
  );
}

/**
 * Imports an export file into the project and one of its environments, in two steps: the
 * service first says what importing would do (errors, warnings, missing permissions) without
 * writing anything, and the import is offered only when nothing would refuse it. Changing
 * the file or the environment asks for a new validation.
 */
export function ImportForm({
  projectId,
  environments,
  onDone,
}: {
  projectId: string;
  environments: string[];
  onDone: () => void;
}) {
  const client = useQueryClient();
  const [environment, setEnvironment] = useState<string | null>(environments[0] ?? null);
  const [file, setFile] = useState<File | null>(null);
  const [content, setContent] = useState<{ data: ImportData } | { problem: string } | null>(null);
  const check = useMutation({ meta: { quiet: true }, mutationFn: validate });
  const apply = useMutation({
    meta: { quiet: true },
    mutationFn: (body: ImportBody) => unwrap(api.POST("/api/admin/features-batch/import", { body })),
    onSuccess: async (_, body) => {
      await client.invalidateQueries({ queryKey: queryKeys.projects.detail(projectId) });
      await client.invalidateQueries({ queryKey: queryKeys.projects.list() });
      notifyDone(
        `${plural(body.data.features.length, "flag")} imported into ${projectId} (${body.environment}).`,
      );
      onDone();
    },
  });
  const body =
    content && "data" in content && environment
      ? { project: projectId, environment, data: content.data }
      : null;
  const reset = () => {
    check.reset();
    apply.reset();
  };
  const choose = async (chosen: File | null) => {
    setFile(chosen);
    reset();
    setContent(chosen ? parseImportFile(await readText(chosen)) : null);
  };
  const report = check.data;
  const verdict = applyVerdict(report);
  const clean =
    report && report.errors.length === 0 && report.warnings.length === 0 && report.permissions.length === 0;

  return (
    <Stack>
      <Select
        label="Environment"
        description="Strategies, variants and whether each flag is on are imported into this environment."
        required
        allowDeselect={false}
        data={environments}
        value={environment}
        onChange={(value) => {
          setEnvironment(value);
          reset();
        }}
      />
      <FileInput
        label="Export file"
        description="A file exported from a project, here or from another instance."
        placeholder="Choose a .json file"
        accept="application/json,.json"
        required
        clearable
        value={file}
        onChange={(chosen) => void choose(chosen)}
        error={content && "problem" in content ? content.problem : undefined}
      />
      {content && "data" in content && (
        <Text size="sm">
          The file holds {plural(content.data.features.length, "flag")}
          {content.data.features.length > 0 &&
            `: ${content.data.features
              .slice(0, 10)
              .map((feature) => feature.name)
              .join(", ")}${content.data.features.length > 10 ? ", …" : ""}`}
          .
        </Text>
      )}
      <FormError error={check.error} />
      {report && (
        <Stack gap="sm" aria-live="polite">
          <Findings title="Errors" color="red" findings={report.errors} role="alert" />
          <Findings title="Missing permissions" color="orange" findings={report.permissions} />
          <Findings title="Warnings" color="yellow" findings={report.warnings} />
          {clean && (
            <Alert color="green" title="Ready to import">
              Nothing in the file would be refused.
            </Alert>
          )}
          {report.errors.length === 0 && report.permissions.length === 0 && !clean && (
            <Text size="sm">Nothing would be refused: read the warnings, then import.</Text>
          )}
        </Stack>
      )}
      <FormError error={apply.error} />
      <Group justify="flex-end">
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button
          variant={report ? "default" : "filled"}
          disabled={!body}
          loading={check.isPending}
          onClick={() => {
            if (!body) return;
            apply.reset();
            check.mutate(body);
          }}
        >
          {report ? "Validate again" : "Validate"}
        </Button>
        <GuardedButton verdict={verdict} loading={apply.isPending} onClick={() => body && apply.mutate(body)}>
          Import
        </GuardedButton>
      </Group>
    </Stack>
  );
}
