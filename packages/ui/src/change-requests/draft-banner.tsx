import { Alert, Button, Group, Stack, Text } from "@mantine/core";
import { Link } from "react-router";
import { plural } from "../components/plural";
import { changeCount, changeRequestPath, usePendingChangeRequests } from "./queries";

/**
 * The person's drafts in the project, one line an environment: changes they made that are
 * not sent for review yet, so not made either.
 */
export function DraftBanner({ projectId }: { projectId: string }) {
  const pending = usePendingChangeRequests(projectId);
  const drafts = (pending.data ?? []).filter(
    (request) => request.state === "Draft" && changeCount(request) > 0,
  );
  if (drafts.length === 0) return null;
  return (
    <Stack gap="xs">
      {drafts.map((draft) => {
        const count = changeCount(draft);
        return (
          <Alert key={draft.id} color="violet" variant="light" aria-label={`Draft for ${draft.environment}`}>
            <Group justify="space-between">
              <Text size="sm">
                You have {plural(count, "change")} in a draft for <strong>{draft.environment}</strong>. They
                are made once the request is reviewed and applied.
              </Text>
              <Button component={Link} to={changeRequestPath(projectId, draft.id)} size="compact-sm">
                Review changes
              </Button>
            </Group>
          </Alert>
        );
      })}
    </Stack>
  );
}
