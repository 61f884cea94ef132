import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { api, type paths, unwrap } from "../api/client";
import { queryKeys } from "../query-keys";

const fetchFlag = (projectId: string, featureName: string) =>
  unwrap(
    api.GET("/api/admin/projects/{projectId}/features/{featureName}", {
      params: { path: { projectId, featureName } },
    }),
  );

export type Flag = Awaited<ReturnType<typeof fetchFlag>>;
export type FlagEnvironment = Flag["environments"][number];
export type Strategy = FlagEnvironment["strategies"][number];
export type StoredVariant = FlagEnvironment["variants"][number];

type StrategiesPath =
  paths["/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies"];
/** A strategy as POST and PUT take it. */
export type StrategyInput = StrategiesPath["post"]["requestBody"]["content"]["application/json"];

/** Where a flag lives: every write about it names both. */
export interface FlagPlace {
  projectId: string;
  featureName: string;
}

export function useFlag(place: FlagPlace, enabled = true) {
  return useQuery({
    queryKey: queryKeys.flags.detail(place.projectId, place.featureName),
    queryFn: () => fetchFlag(place.projectId, place.featureName),
    enabled,
  });
}

/**
 * After a write to a flag: its view, the project's listing (environment switches, tags and
 * staleness show there) and the flag's history all changed.
 */
export function useFlagChanged(place: FlagPlace) {
  const client = useQueryClient();
  return useCallback(
    () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.flags.detail(place.projectId, place.featureName) }),
        client.invalidateQueries({ queryKey: queryKeys.projects.detail(place.projectId) }),
        client.invalidateQueries({ queryKey: queryKeys.events.all() }),
      ]),
    [client, place],
  );
}

export function useProject(projectId: string) {
  return useQuery({
    queryKey: queryKeys.projects.detail(projectId),
    queryFn: () => unwrap(api.GET("/api/admin/projects/{projectId}", { params: { path: { projectId } } })),
  });
}

export function useContextFields() {
  return useQuery({
    queryKey: queryKeys.contextFields.list(),
    queryFn: () => unwrap(api.GET("/api/admin/context")),
    staleTime: 30_000,
  });
}

export type ContextField = NonNullable<ReturnType<typeof useContextFields>["data"]>[number];

export function useSegments() {
  return useQuery({
    queryKey: queryKeys.segments.list(),
    queryFn: () => unwrap(api.GET("/api/admin/segments")),
    staleTime: 30_000,
  });
}

export function useStrategyDefinitions() {
  return useQuery({
    queryKey: queryKeys.strategyTypes.list(),
    queryFn: () => unwrap(api.GET("/api/admin/strategies")),
    staleTime: 60_000,
  });
}

export type StrategyDefinition = NonNullable<
  ReturnType<typeof useStrategyDefinitions>["data"]
>["strategies"][number];

export function useTagTypes() {
  return useQuery({
    queryKey: queryKeys.tagTypes.list(),
    queryFn: () => unwrap(api.GET("/api/admin/tag-types")),
    staleTime: 60_000,
  });
}
