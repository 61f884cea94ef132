import { Loader, Stack, Text, Title } from "@mantine/core";
import { useMe } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { PageHeader } from "../components/page-header";
import { ChangeRequestTable, type ListedRequest } from "./change-request-table";
import { type ChangeRequestSummary, useAwaitingMyReview, useChangeRequestSearch } from "./queries";

const listed = (summary: ChangeRequestSummary): ListedRequest => ({ ...summary, flags: summary.features });

/** Change requests across projects: those waiting for the person's review, and their own open ones. */
export default function ReviewsPage() {
  const me = useMe();
  const userId = me.data?.user.id;
  const awaiting = useAwaitingMyReview();
  const own = useChangeRequestSearch(
    { createdBy: userId ?? 0, state: "open", limit: 100 },
    { enabled: userId !== undefined },
  );
  return (
    <Stack gap="lg">
      <PageHeader
        title="Change requests"
        description="Changes to environments that require review: those waiting for yours, and your own."
      />
      <Listing title="Awaiting your review" result={awaiting} empty="Nothing is waiting for your review." />
      {userId !== undefined && (
        <Listing title="Your open change requests" result={own} empty="You have no open change requests." />
      )}
    </Stack>
  );
}

function Listing({
  title,
  result,
  empty,
}: {
  title: string;
  result: ReturnType<typeof useChangeRequestSearch>;
  empty: string;
}) {
  return (
    <Stack gap="xs" component="section" aria-label={title}>
      <Title order={3}>{title}</Title>
      {result.isPending ? (
        <Loader size="sm" aria-label={`Loading: ${title}`} />
      ) : result.isError ? (
        <ErrorPanel error={result.error} />
      ) : result.data.changeRequests.length === 0 ? (
        <Text c="dimmed">{empty}</Text>
      ) : (
        <ChangeRequestTable requests={result.data.changeRequests.map(listed)} label={title} showProject />
      )}
    </Stack>
  );
}
