import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Code,
  Divider,
  Grid,
  Group,
  List,
  Loader,
  Modal,
  MultiSelect,
  Paper,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { api, unwrap } from "../api/client";
import { useCan, useMe, type Verdict } from "../auth/session";
import { ConfirmButton } from "../components/confirm-button";
import { ErrorPanel } from "../components/error-panel";
import { FormError } from "../components/form-error";
import { GuardedButton } from "../components/guarded-button";
import { notifyDone } from "../components/notify";
import { pickHint } from "../components/pick-hint";
import { plural } from "../components/plural";
import { RelativeTime } from "../components/relative-time";
import { JsonDiff } from "../events/json-diff";
import { useFlag, useSegments } from "../flags/queries";
import { flagPath, projectPath } from "../projects/paths";
import { queryKeys } from "../query-keys";
import { describeChange, flagChangeDiff, segmentChangeDiff } from "./change-diff";
import {
  type ChangeRequest,
  changeRequestPath,
  type RequestedChange,
  type SegmentChange,
  type State,
  useAvailableReviewers,
  useChangeRequest,
  useChangeRequestsChanged,
} from "./queries";
import { useReleaseContext } from "./release-context";
import { RELEASE_ACTIONS, type ReleaseContext } from "./release-diff";
import { hasConflicts, OPEN_STATES, type RequestAction, requestActions, STATE_COLORS } from "./rules";
import { ScheduleModal } from "./schedule-modal";

/** A change request: what it changes, against the flags as they are now, its reviews, and what can be done to it. */
export default function ChangeRequestPage() {
  const { projectId = "", id = "" } = useParams();
  const request = useChangeRequest(projectId, Number(id));
  if (request.isPending) return <Loader aria-label="Loading the change request" />;
  if (request.isError) return <ErrorPanel error={request.error} />;
  return <ChangeRequestView request={request.data} />;
}

export function StateBadge({ state }: { state: State }) {
  return (
    <Badge color={STATE_COLORS[state]} variant="light" tt="none">
      {state}
    </Badge>
  );
}

const personOf = (person: { username: string | null }) => person.username ?? "a deleted user";

type StateInput = { state: State; comment?: string; scheduledAt?: string };

/** The request's writes: each refreshes it, the other screens showing requests, and, once applied, the flags. */
function useRequestWrites(request: ChangeRequest) {
  const client = useQueryClient();
  const changed = useChangeRequestsChanged();
  const path = { projectId: request.project, id: request.id };
  const flagsChanged = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: queryKeys.flags.ofProject(request.project) }),
      client.invalidateQueries({ queryKey: queryKeys.projects.detail(request.project) }),
      client.invalidateQueries({ queryKey: queryKeys.segments.list() }),
      client.invalidateQueries({ queryKey: queryKeys.events.all() }),
    ]);
  const setState = useMutation({
    mutationFn: (input: StateInput) =>
      unwrap(
        api.PUT("/api/admin/projects/{projectId}/change-requests/{id}/state", {
          params: { path },
          body: input,
        }),
      ),
    onSuccess: async (next) => {
      client.setQueryData(queryKeys.changeRequests.detail(request.project, request.id), next);
      await changed();
      if (next.state === "Applied") await flagsChanged();
      notifyDone(STATE_DONE[next.state]);
    },
  });
  return { setState, changed, path };
}

const STATE_DONE: Record<State, string> = {
  Draft: "The change request is a draft.",
  "In review": "Sent for review.",
  Approved: "Approved: it can be applied.",
  Applied: "Applied: the changes are made.",
  Scheduled: "Scheduled.",
  Cancelled: "The change request is cancelled.",
  Rejected: "The change request is rejected.",
};

export function ChangeRequestView({ request }: { request: ChangeRequest }) {
  const me = useMe();
  const can = useCan();
  const viewer = {
    id: me.data?.user.id,
    admin: can("ADMIN").allowed,
    can,
  };
  const actions = requestActions(request, viewer);
  const open = OPEN_STATES.includes(request.state);
  const conflicts = open && hasConflicts(request);
  const approved = request.approvals.length;

  return (
    <Stack gap="md">
      <Group gap="xs">
        <Anchor component={Link} to={projectPath(request.project, "change-requests")} size="sm">
          ← Change requests of {request.project}
        </Anchor>
      </Group>
      <RequestTitle request={request} verdict={actions.editTitle} />
      <Group gap="lg">
        <StateBadge state={request.state} />
        <Text size="sm">
          Environment <strong>{request.environment}</strong>
        </Text>
        <Text size="sm">
          By <strong>{personOf(request.createdBy)}</strong>, <RelativeTime value={request.createdAt} />
        </Text>
        <Text size="sm">
          {approved} of {plural(request.minApprovals, "approval")}
        </Text>
      </Group>

      {conflicts && (
        <Alert color="red" title="Conflicts" icon={<IconAlertTriangle />} role="alert">
          Some changes no longer fit what they change: the flag or segment has changed since they were made.
          They cannot be applied until their author edits or discards them, and the request is then reviewed
          again.
        </Alert>
      )}
      {request.schedule && <ScheduleNotice schedule={request.schedule} />}

      <RequestActions request={request} actions={actions} />

      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Stack gap="md">
            {request.features.length === 0 && request.segments.length === 0 && (
              <Text c="dimmed">This change request holds no changes.</Text>
            )}
            {request.features.map((feature) => (
              <FeatureChanges
                key={feature.name}
                request={request}
                feature={feature}
                current={open}
                discard={actions.editChanges}
              />
            ))}
            {request.segments.length > 0 && (
              <SegmentChanges request={request} current={open} discard={actions.editChanges} />
            )}
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack gap="md">
            <Reviews request={request} ask={actions.askReviewers} />
            <Comments request={request} />
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

function RequestTitle({ request, verdict }: { request: ChangeRequest; verdict: Verdict | undefined }) {
  const { changed, path } = useRequestWrites(request);
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(request.title);
  const save = useMutation({
    meta: { quiet: true },
    mutationFn: () =>
      unwrap(
        api.PUT("/api/admin/projects/{projectId}/change-requests/{id}/title", {
          params: { path },
          body: { title: title.trim() },
        }),
      ),
    onSuccess: async () => {
      await changed();
      setEditing(false);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  if (editing) {
    return (
      <form onSubmit={submit} aria-label="Change request title">
        <Stack gap="xs" maw={640}>
          <TextInput
            label="Title"
            value={title}
            onChange={(event) => setTitle(event.currentTarget.value)}
            maxLength={255}
            data-autofocus
            required
          />
          <FormError error={save.error} />
          <Group>
            <Button type="submit" loading={save.isPending} disabled={title.trim() === ""}>
              Save title
            </Button>
            <Button
              variant="default"
              onClick={() => {
                setTitle(request.title);
                setEditing(false);
              }}
            >
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    );
  }
  return (
    <Group gap="sm" align="center">
      <Title order={2}>{request.title}</Title>
      {verdict && (
        <GuardedButton
          verdict={verdict}
          variant="subtle"
          size="compact-sm"
          onClick={() => {
            setTitle(request.title);
            setEditing(true);
          }}
        >
          Edit title
        </GuardedButton>
      )}
    </Group>
  );
}

function ScheduleNotice({ schedule }: { schedule: NonNullable<ChangeRequest["schedule"]> }) {
  const at = new Date(schedule.scheduledAt).toLocaleString();
  if (schedule.status === "pending") {
    return (
      <Alert color="indigo" title="Scheduled">
        To be applied at {at} (<RelativeTime value={schedule.scheduledAt} />
        ).
      </Alert>
    );
  }
  return (
    <Alert
      color={schedule.status === "failed" ? "red" : "orange"}
      title={schedule.status === "failed" ? "The scheduled application failed" : "The schedule is suspended"}
      role="alert"
    >
      It was due at {at}. {schedule.reason || schedule.failureReason || ""}
    </Alert>
  );
}

/** The buttons the request's state offers, each disabled with the reason when the person may not use it. */
function RequestActions({
  request,
  actions,
}: {
  request: ChangeRequest;
  actions: Partial<Record<RequestAction, Verdict>>;
}) {
  const navigate = useNavigate();
  const { setState, changed, path } = useRequestWrites(request);
  const [scheduling, setScheduling] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const busy = (state: State) => setState.isPending && setState.variables?.state === state;
  const to = (state: State, extra: Omit<StateInput, "state"> = {}) => setState.mutate({ state, ...extra });

  const discard = async () => {
    await unwrap(api.DELETE("/api/admin/projects/{projectId}/change-requests/{id}", { params: { path } }));
    await changed();
    notifyDone("Draft discarded.");
    navigate(projectPath(request.project, "change-requests"));
  };

  const shown = Object.keys(actions).filter((name) => name !== "editTitle" && name !== "editChanges");
  if (shown.length === 0) return null;
  return (
    <Group gap="sm" aria-label="Actions">
      {actions.submit && (
        <GuardedButton verdict={actions.submit} loading={busy("In review")} onClick={() => to("In review")}>
          Submit for review
        </GuardedButton>
      )}
      {actions.approve && (
        <GuardedButton
          verdict={actions.approve}
          color="teal"
          loading={busy("Approved")}
          onClick={() => to("Approved")}
        >
          Approve
        </GuardedButton>
      )}
      {actions.apply && (
        <GuardedButton verdict={actions.apply} loading={busy("Applied")} onClick={() => to("Applied")}>
          Apply changes
        </GuardedButton>
      )}
      {actions.applyNow && (
        <GuardedButton verdict={actions.applyNow} loading={busy("Applied")} onClick={() => to("Applied")}>
          Apply now
        </GuardedButton>
      )}
      {actions.schedule && (
        <GuardedButton verdict={actions.schedule} variant="default" onClick={() => setScheduling(true)}>
          Schedule
        </GuardedButton>
      )}
      {actions.reschedule && (
        <GuardedButton verdict={actions.reschedule} variant="default" onClick={() => setScheduling(true)}>
          Reschedule
        </GuardedButton>
      )}
      {actions.reject && (
        <GuardedButton
          verdict={actions.reject}
          color="red"
          variant="light"
          onClick={() => setRejecting(true)}
        >
          Reject
        </GuardedButton>
      )}
      {actions.cancel && (
        <ConfirmButton
          verdict={actions.cancel}
          title="Cancel this change request?"
          message="None of its changes are made. A cancelled request cannot be reopened."
          confirmLabel="Cancel request"
          onConfirm={() => setState.mutateAsync({ state: "Cancelled" })}
        >
          Cancel request
        </ConfirmButton>
      )}
      {actions.discard && (
        <ConfirmButton
          verdict={actions.discard}
          title="Discard this draft?"
          message="The draft and every change in it are deleted. Nothing is changed on the flags."
          confirmLabel="Discard draft"
          onConfirm={discard}
        >
          Discard draft
        </ConfirmButton>
      )}
      {scheduling && (
        <ScheduleModal
          title={
            request.state === "Scheduled" ? "Reschedule the change request" : "Schedule the change request"
          }
          current={request.schedule?.scheduledAt}
          pending={busy("Scheduled")}
          onClose={() => setScheduling(false)}
          onSchedule={(scheduledAt) =>
            setState.mutate({ state: "Scheduled", scheduledAt }, { onSuccess: () => setScheduling(false) })
          }
        />
      )}
      {rejecting && (
        <RejectModal
          pending={busy("Rejected")}
          onClose={() => setRejecting(false)}
          onReject={(comment) =>
            setState.mutate(
              { state: "Rejected", ...(comment ? { comment } : {}) },
              { onSuccess: () => setRejecting(false) },
            )
          }
        />
      )}
    </Group>
  );
}

function RejectModal({
  pending,
  onReject,
  onClose,
}: {
  pending: boolean;
  onReject: (comment: string) => void;
  onClose: () => void;
}) {
  const [comment, setComment] = useState("");
  return (
    <Modal opened onClose={onClose} title="Reject the change request">
      <Stack>
        <Textarea
          label="Why"
          description="Optional: added to the request's comments"
          autosize
          minRows={3}
          value={comment}
          onChange={(event) => setComment(event.currentTarget.value)}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" loading={pending} onClick={() => onReject(comment.trim())}>
            Reject
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function FeatureChanges({
  request,
  feature,
  current,
  discard,
}: {
  request: ChangeRequest;
  feature: ChangeRequest["features"][number];
  /** Whether to compare with the flag as it is now: not once the request is closed. */
  current: boolean;
  discard: Verdict | undefined;
}) {
  const flag = useFlag({ projectId: request.project, featureName: feature.name }, current);
  // Release changes name milestones, plans and templates by id: read with them, they name them.
  const release = useReleaseContext(
    { projectId: request.project, featureName: feature.name, environment: request.environment },
    feature.changes.some((change) => RELEASE_ACTIONS.has(change.action)),
  );
  const headingId = `feature-${feature.name}`;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3} id={headingId}>
            <Anchor component={Link} to={flagPath(request.project, feature.name)} inherit>
              {feature.name}
            </Anchor>
          </Title>
          {feature.conflict && (
            <Badge color="red" leftSection={<IconAlertTriangle size={12} />}>
              Conflict
            </Badge>
          )}
        </Group>
        {feature.conflict && current && (
          <Alert color="red" title="Conflict" role="alert">
            {feature.conflict}
          </Alert>
        )}
        {feature.changes.map((change) => (
          <ChangeCard
            key={change.id}
            request={request}
            change={change}
            discard={discard}
            release={release}
            diff={
              current
                ? flagChangeDiff(change.action, change.payload, flag.data, request.environment, release)
                : undefined
            }
          />
        ))}
        {feature.defaultChange && (
          <Box>
            <Text size="sm" fw={600}>
              Also, when applied:{" "}
              {describeChange(
                feature.defaultChange.action,
                feature.defaultChange.payload,
                request.environment,
              )}
            </Text>
            <Text size="sm" c="dimmed" mb={4}>
              The flag has no active strategy in {request.environment}: switching it on adds a rollout to
              everyone, as a direct switch would.
            </Text>
            <JsonDiff
              label={`Default change to ${feature.name}`}
              before={null}
              after={feature.defaultChange.payload}
            />
          </Box>
        )}
      </Stack>
    </Paper>
  );
}

function SegmentChanges({
  request,
  current,
  discard,
}: {
  request: ChangeRequest;
  current: boolean;
  discard: Verdict | undefined;
}) {
  const segments = useSegments();
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="segment-changes">
      <Stack gap="sm">
        <Title order={3} id="segment-changes">
          Segments
        </Title>
        {request.segments.map((change) => {
          const id = (change.payload as { id?: number } | null)?.id;
          const segment = segments.data?.segments.find((candidate) => candidate.id === id);
          return (
            <ChangeCard
              key={change.id}
              request={request}
              change={change}
              discard={discard}
              diff={current ? segmentChangeDiff(change.action, change.payload, segment) : undefined}
            />
          );
        })}
      </Stack>
    </Paper>
  );
}

function ChangeCard({
  request,
  change,
  diff,
  discard,
  release,
}: {
  request: ChangeRequest;
  change: RequestedChange | SegmentChange;
  diff: { before: unknown; after: unknown } | undefined;
  discard: Verdict | undefined;
  /** What a release change's ids are named by. */
  release?: ReleaseContext;
}) {
  const { changed, path } = useRequestWrites(request);
  const client = useQueryClient();
  const what = describeChange(change.action, change.payload, request.environment, release);
  const remove = async () => {
    await unwrap(
      api.DELETE("/api/admin/projects/{projectId}/change-requests/{id}/changes/{changeId}", {
        params: { path: { ...path, changeId: change.id } },
      }),
    );
    await Promise.all([
      changed(),
      client.invalidateQueries({ queryKey: queryKeys.flags.ofProject(request.project) }),
    ]);
    notifyDone("Change discarded.");
  };
  const resubmitted = request.state === "In review" || request.state === "Approved";
  return (
    <Paper
      withBorder
      p="sm"
      component="article"
      aria-label={what}
      style={change.conflict ? { borderColor: "var(--mantine-color-red-6)", borderWidth: 2 } : undefined}
    >
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={0}>
            <Text fw={600}>{what}</Text>
            <Text size="xs" c="dimmed">
              {change.action} by {personOf(change.createdBy)}, <RelativeTime value={change.createdAt} />
            </Text>
          </Stack>
          {discard && (
            <ConfirmButton
              verdict={discard}
              aria-label={`Discard change: ${what}`}
              title="Discard this change?"
              message={
                resubmitted
                  ? "The change is removed from the request, which then needs its approvals again."
                  : "The change is removed from the request."
              }
              confirmLabel="Discard change"
              onConfirm={remove}
            >
              Discard
            </ConfirmButton>
          )}
        </Group>
        {change.conflict && (
          <Alert color="red" title="Conflict" icon={<IconAlertTriangle />} role="alert">
            {change.conflict}
          </Alert>
        )}
        {diff ? (
          <JsonDiff label={`Changes: ${what}`} before={diff.before} after={diff.after} />
        ) : (
          <Code block aria-label={`What was asked: ${what}`}>
            {JSON.stringify(change.payload, null, 2)}
          </Code>
        )}
      </Stack>
    </Paper>
  );
}

function Reviews({ request, ask }: { request: ChangeRequest; ask: Verdict | undefined }) {
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="reviews">
      <Stack gap="xs">
        <Title order={4} id="reviews">
          Reviews
        </Title>
        <Text size="sm">
          {request.approvals.length} of {plural(request.minApprovals, "required approval")}
        </Text>
        <People
          label="Approved by"
          people={request.approvals.map((review) => ({ ...review.createdBy, at: review.createdAt }))}
        />
        <People
          label="Rejected by"
          people={request.rejections.map((review) => ({ ...review.createdBy, at: review.createdAt }))}
        />
        <People label="Reviewers asked" people={request.reviewers} />
        {ask && <ReviewerPicker request={request} verdict={ask} />}
      </Stack>
    </Paper>
  );
}

/** The author (or an admin) names whom to ask: people who may approve in the request's environment. */
function ReviewerPicker({ request, verdict }: { request: ChangeRequest; verdict: Verdict }) {
  const { changed, path } = useRequestWrites(request);
  const asked = request.reviewers.map((reviewer) => String(reviewer.id));
  const [chosen, setChosen] = useState(asked);
  const available = useAvailableReviewers(request.project, request.environment, verdict.allowed);
  const save = useMutation({
    meta: { quiet: true },
    mutationFn: () =>
      unwrap(
        api.PUT("/api/admin/projects/{projectId}/change-requests/{id}/approvers", {
          params: { path },
          body: { reviewers: chosen.map(Number) },
        }),
      ),
    onSuccess: async () => {
      await changed();
      notifyDone(chosen.length === 0 ? "No one is asked to review." : "Reviewers asked.");
    },
  });
  // Those asked already stay listed even if they may no longer approve, so they can be removed.
  const options = new Map<string, string>(
    request.reviewers.map((reviewer) => [String(reviewer.id), personOf(reviewer)]),
  );
  for (const reviewer of available.data?.reviewers ?? []) {
    if (reviewer.id === request.createdBy.id) continue;
    options.set(
      String(reviewer.id),
      reviewer.name ?? reviewer.username ?? reviewer.email ?? `#${reviewer.id}`,
    );
  }
  const unchanged = [...chosen].sort().join() === [...asked].sort().join();
  return (
    <Stack gap="xs">
      <MultiSelect
        label="Ask to review"
        placeholder={
          available.isLoading ? "Loading people…" : pickHint(chosen, "Pick people who may approve")
        }
        data={[...options].map(([value, label]) => ({ value, label }))}
        value={chosen}
        onChange={setChosen}
        searchable
        disabled={!verdict.allowed}
        description={verdict.allowed ? undefined : verdict.reason}
        nothingFoundMessage="No one else may approve here"
      />
      <FormError error={save.error ?? available.error} />
      <Group justify="flex-end">
        <GuardedButton
          verdict={verdict}
          variant="light"
          loading={save.isPending}
          disabled={unchanged}
          onClick={() => save.mutate()}
        >
          Save reviewers
        </GuardedButton>
      </Group>
    </Stack>
  );
}

function People({
  label,
  people,
}: {
  label: string;
  people: { id: number; username: string | null; at?: string }[];
}) {
  if (people.length === 0) return null;
  return (
    <Box>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <List size="sm" aria-label={label}>
        {people.map((person) => (
          <List.Item key={person.id}>
            {personOf(person)}
            {person.at && (
              <>
                , <RelativeTime value={person.at} />
              </>
            )}
          </List.Item>
        ))}
      </List>
    </Box>
  );
}

function Comments({ request }: { request: ChangeRequest }) {
  const { changed, path } = useRequestWrites(request);
  const [text, setText] = useState("");
  const add = useMutation({
    meta: { quiet: true },
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/projects/{projectId}/change-requests/{id}/comments", {
          params: { path },
          body: { text: text.trim() },
        }),
      ),
    onSuccess: async () => {
      setText("");
      await changed();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="comments">
      <Stack gap="sm">
        <Title order={4} id="comments">
          Comments
        </Title>
        {request.comments.length === 0 ? (
          <Text size="sm" c="dimmed">
            No comments yet.
          </Text>
        ) : (
          <Stack gap="xs" component="ol" style={{ listStyle: "none", padding: 0, margin: 0 }}>
            {request.comments.map((comment) => (
              <Box component="li" key={comment.id}>
                <Text size="xs" c="dimmed">
                  {personOf(comment.createdBy)}, <RelativeTime value={comment.createdAt} />
                </Text>
                <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
                  {comment.text}
                </Text>
              </Box>
            ))}
          </Stack>
        )}
        <Divider />
        <form onSubmit={submit} aria-label="Add a comment">
          <Stack gap="xs">
            <Textarea
              label="Comment"
              autosize
              minRows={2}
              value={text}
              onChange={(event) => setText(event.currentTarget.value)}
              maxLength={10_000}
            />
            <FormError error={add.error} />
            <Group justify="flex-end">
              <Button type="submit" variant="light" loading={add.isPending} disabled={text.trim() === ""}>
                Add comment
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Paper>
  );
}

/** A link to a request, named by its title. */
export function RequestLink({
  projectId,
  id,
  children,
}: {
  projectId: string;
  id: number;
  children: ReactNode;
}) {
  return (
    <Anchor component={Link} to={changeRequestPath(projectId, id)}>
      {children}
    </Anchor>
  );
}
