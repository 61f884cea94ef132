import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { api, type paths, unwrap } from "../api/client";
import { queryKeys } from "../query-keys";

const fetchConfig = (projectId: string) =>
  unwrap(
    api.GET("/api/admin/projects/{projectId}/change-requests/config", { params: { path: { projectId } } }),
  );

const fetchRequest = (projectId: string, id: number) =>
  unwrap(
    api.GET("/api/admin/projects/{projectId}/change-requests/{id}", { params: { path: { projectId, id } } }),
  );

const SEARCH = "/api/admin/search/change-requests" as const;
export type SearchQuery = NonNullable<paths[typeof SEARCH]["get"]["parameters"]["query"]>;
const search = (query: SearchQuery) => unwrap(api.GET(SEARCH, { params: { query } }));

export type EnvironmentConfig = Awaited<ReturnType<typeof fetchConfig>>[number];
export type ChangeRequest = Awaited<ReturnType<typeof fetchRequest>>;
export type RequestedChange = ChangeRequest["features"][number]["changes"][number];
export type SegmentChange = ChangeRequest["segments"][number];
export type ChangeRequestSummary = Awaited<ReturnType<typeof search>>["changeRequests"][number];
export type State = ChangeRequest["state"];
/** A change as the service takes one: a flag's (none for a segment's), what to do, with what. */
export type ChangeInput =
  paths["/api/admin/projects/{projectId}/change-requests/{id}/changes/{changeId}"]["put"]["requestBody"]["content"]["application/json"];

export const configQuery = (projectId: string) => ({
  queryKey: queryKeys.changeRequests.config(projectId),
  queryFn: () => fetchConfig(projectId),
  staleTime: 30_000,
});

/** Which environments of the project require change requests, and how many approvals. */
export function useChangeRequestConfig(projectId: string) {
  return useQuery(configQuery(projectId));
}

export function useChangeRequest(projectId: string, id: number) {
  return useQuery({
    queryKey: queryKeys.changeRequests.detail(projectId, id),
    queryFn: () => fetchRequest(projectId, id),
  });
}

/** Every request of the project, newest first. */
export function useProjectChangeRequests(projectId: string) {
  return useQuery({
    queryKey: queryKeys.changeRequests.ofProject(projectId),
    queryFn: () =>
      unwrap(api.GET("/api/admin/projects/{projectId}/change-requests", { params: { path: { projectId } } })),
  });
}

/** The person's own open requests in the project's gated environments: their drafts among them. */
export function usePendingChangeRequests(projectId: string) {
  return useQuery({
    queryKey: queryKeys.changeRequests.pending(projectId),
    queryFn: () =>
      unwrap(
        api.GET("/api/admin/projects/{projectId}/change-requests/pending", {
          params: { path: { projectId } },
        }),
      ),
  });
}

/** The people who may approve requests in a project's environment: whom an author may ask. */
export function useAvailableReviewers(projectId: string, environment: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.changeRequests.reviewers(projectId, environment),
    queryFn: () =>
      unwrap(
        api.GET("/api/admin/projects/{projectId}/change-requests/available-reviewers/{environment}", {
          params: { path: { projectId, environment } },
        }),
      ),
    enabled,
  });
}

export function useChangeRequestSearch(
  query: SearchQuery,
  options: { refetchInterval?: number; enabled?: boolean } = {},
) {
  return useQuery({
    queryKey: queryKeys.changeRequests.search(query),
    queryFn: () => search(query),
    ...options,
  });
}

/** The requests waiting for the person's review: what the navigation's badge counts. */
export function useAwaitingMyReview() {
  // Someone else's submission arrives without the person doing anything: asked again now and then.
  return useChangeRequestSearch({ awaitingMyReview: true, limit: 100 }, { refetchInterval: 30_000 });
}

/**
 * After a write to a change request, or a change added to a draft: every screen that shows
 * requests (the banner, the project's list, the page, the review badge) reads them again.
 */
export function useChangeRequestsChanged() {
  const client = useQueryClient();
  return useCallback(() => client.invalidateQueries({ queryKey: queryKeys.changeRequests.all() }), [client]);
}

/** How many changes a request holds, the flags' and the segments'. */
export const changeCount = (request: Pick<ChangeRequest, "features" | "segments">) =>
  request.features.reduce((sum, feature) => sum + feature.changes.length, 0) + request.segments.length;

export const changeRequestPath = (projectId: string, id: number) =>
  `/projects/${encodeURIComponent(projectId)}/change-requests/${id}`;
