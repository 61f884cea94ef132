import { Button, Group, Select, Stack, Text } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../api/client";
import { FormError } from "../components/form-error";
import { notifyDone } from "../components/notify";
import { plural } from "../components/plural";

/** Hands the browser a file to save, as a link to it clicked. */
export function download(name: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has the file once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Exports a project's active flags in one environment (their strategies, variants, tags,
 * dependencies, and the context fields, segment names and tag types they use) to a file that
 * the import dialog, here or in another instance, reads back.
 */
export function ExportForm({
  projectId,
  environments,
  onDone,
}: {
  projectId: string;
  environments: string[];
  onDone: () => void;
}) {
  const [environment, setEnvironment] = useState<string | null>(environments[0] ?? null);
  const run = useMutation({
    meta: { quiet: true },
    mutationFn: (chosen: string) =>
      unwrap(
        api.POST("/api/admin/features-batch/export", {
          body: { environment: chosen, project: projectId, downloadFile: true },
        }),
      ),
    onSuccess: (file, chosen) => {
      const day = new Date().toISOString().slice(0, 10);
      download(`export-${projectId}-${chosen}-${day}.json`, JSON.stringify(file, null, 2));
      notifyDone(`${plural(file.features.length, "flag")} of ${projectId} exported.`);
      onDone();
    },
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (environment) run.mutate(environment);
      }}
    >
      <Stack>
        <Text size="sm">
          The project's active flags as they are in one environment: strategies, variants, tags and
          dependencies, with the context fields, segments and tag types they use.
        </Text>
        <Select
          label="Environment"
          required
          allowDeselect={false}
          data={environments}
          value={environment}
          onChange={setEnvironment}
        />
        <FormError error={run.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={run.isPending} disabled={!environment}>
            Export to a file
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
