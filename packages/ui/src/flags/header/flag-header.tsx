import { Alert, Badge, Group } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useNavigate } from "react-router";
import { api, unwrap } from "../../api/client";
import { useCan } from "../../auth/session";
import { useChangeGate } from "../../change-requests/use-change-gate";
import { ConfirmButton } from "../../components/confirm-button";
import { FavoriteStar } from "../../components/favorite-star";
import { GuardedButton } from "../../components/guarded-button";
import { GuardedSwitch } from "../../components/guarded-switch";
import { notifyDone } from "../../components/notify";
import { PageHeader } from "../../components/page-header";
import { RelativeTime } from "../../components/relative-time";
import { useFlagCan } from "../permissions";
import { type Flag, useFlagChanged } from "../queries";
import { EditFlagModal } from "./edit-flag-modal";

/** The flag's name and description, and what is done to the flag as a whole. */
export function FlagHeader({ flag }: { flag: Flag }) {
  const place = { projectId: flag.project, featureName: flag.name };
  const can = useFlagCan(flag);
  const canAnyway = useCan();
  const navigate = useNavigate();
  const flagChanged = useFlagChanged(place);
  const gate = useChangeGate(flag.project);
  const archiveReviewedIn = gate.flagWideEnvironment();
  const [editing, setEditing] = useState(false);
  const projectPath = `/projects/${encodeURIComponent(flag.project)}`;

  const favorite = useMutation({
    mutationFn: (on: boolean) => {
      const options = { params: { path: place } };
      return unwrap(
        on
          ? api.POST("/api/admin/projects/{projectId}/features/{featureName}/favorites", options)
          : api.DELETE("/api/admin/projects/{projectId}/features/{featureName}/favorites", options),
      );
    },
    onSuccess: flagChanged,
  });

  const stale = useMutation({
    mutationFn: (on: boolean) =>
      unwrap(
        api.PATCH("/api/admin/projects/{projectId}/features/{featureName}", {
          params: { path: place },
          body: [{ op: "replace", path: "/stale", value: on }],
        }),
      ),
    onSuccess: async (_, on) => {
      await flagChanged();
      notifyDone(on ? `${flag.name} marked stale.` : `${flag.name} is no longer stale.`);
    },
  });

  const revive = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/admin/archive/revive/{featureName}", { params: { path: { featureName: flag.name } } }),
      ),
    onSuccess: async () => {
      await flagChanged();
      notifyDone(`${flag.name} revived. It is off in every environment.`);
    },
  });

  const archive = async () => {
    const outcome = await gate.sendFlagWide(
      { feature: flag.name, action: "archiveFeature", payload: {} },
      () =>
        unwrap(
          api.DELETE("/api/admin/projects/{projectId}/features/{featureName}", { params: { path: place } }),
        ),
    );
    await flagChanged();
    if (!outcome.drafted) notifyDone(`${flag.name} archived. SDKs no longer receive it.`);
  };

  const deleteForGood = async () => {
    await unwrap(
      api.DELETE("/api/admin/archive/{featureName}", { params: { path: { featureName: flag.name } } }),
    );
    notifyDone(`${flag.name} deleted.`);
    navigate(projectPath);
  };

  const title = (
    <Group gap="xs" component="span">
      {flag.name}
      <FavoriteStar name={flag.name} favorite={flag.favorite} onChange={(on) => favorite.mutate(on)} />
      {flag.stale && <Badge color="orange">Stale</Badge>}
      {flag.archived && <Badge color="gray">Archived</Badge>}
    </Group>
  );

  const actions = flag.archived ? (
    <>
      <GuardedButton
        verdict={canAnyway("UPDATE_FEATURE", { project: flag.project })}
        loading={revive.isPending}
        onClick={() => revive.mutate()}
      >
        Revive
      </GuardedButton>
      <ConfirmButton
        verdict={canAnyway("DELETE_FEATURE", { project: flag.project })}
        title={`Delete ${flag.name} for good?`}
        message="The flag, its strategies, variants and tags are deleted. Its events stay in the event log. This cannot be undone."
        confirmLabel="Delete for good"
        onConfirm={deleteForGood}
      >
        Delete for good
      </ConfirmButton>
    </>
  ) : (
    <>
      <GuardedSwitch
        verdict={can("UPDATE_FEATURE")}
        label="Stale"
        description="No longer needed; due for removal from the code"
        checked={flag.stale}
        onChange={(event) => stale.mutate(event.currentTarget.checked)}
      />
      <GuardedButton verdict={can("UPDATE_FEATURE")} variant="default" onClick={() => setEditing(true)}>
        Edit
      </GuardedButton>
      <ConfirmButton
        verdict={can("DELETE_FEATURE")}
        title={`Archive ${flag.name}?`}
        message={
          archiveReviewedIn
            ? `Archiving is added to your draft change request for ${archiveReviewedIn}; the flag is archived when the request is applied.`
            : "SDKs stop receiving the flag, so code asking for it gets its fallback. An archived flag can be revived."
        }
        confirmLabel={archiveReviewedIn ? "Add to draft" : "Archive flag"}
        onConfirm={archive}
      >
        Archive
      </ConfirmButton>
    </>
  );

  return (
    <>
      <PageHeader title={title} description={flag.description || "No description."} actions={actions} />
      {flag.archived && (
        <Alert color="gray" title="Archived" mb="md">
          Archived <RelativeTime value={flag.archivedAt} empty="" />. SDKs do not receive it; revive it to use
          or change it.
        </Alert>
      )}
      {editing && <EditFlagModal flag={flag} onClose={() => setEditing(false)} />}
    </>
  );
}
