import { type QueryKey, useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { useChangeGate } from "../change-requests/use-change-gate";
import { queryKeys } from "../query-keys";

export function useProject(projectId: string) {
  return useQuery({
    queryKey: queryKeys.projects.detail(projectId),
    queryFn: () => unwrap(api.GET("/api/admin/projects/{projectId}", { params: { path: { projectId } } })),
  });
}

export type Project = NonNullable<ReturnType<typeof useProject>["data"]>;

export function useEnvironments() {
  return useQuery({
    queryKey: queryKeys.environments.list(),
    queryFn: () => unwrap(api.GET("/api/admin/environments")),
    staleTime: 30_000,
  });
}

// The search answers at most 100 flags a page, as the reference's does.
const PAGE = 100;

const searchPage = (projectId: string, offset: number) =>
  unwrap(
    api.GET("/api/admin/search/features", {
      params: { query: { project: `IS:${projectId}`, limit: String(PAGE), offset: String(offset) } },
    }),
  );

type Page = Awaited<ReturnType<typeof searchPage>>;
export type ProjectFlag = Page["features"][number];

type PageResult = { data?: Page | undefined; isPending: boolean; error: Error | null };

// At module level, so the combined list is only rebuilt when a page changes.
function combinePages(pages: PageResult[]) {
  // A flag created or archived between two pages can shift another across them.
  const seen = new Set<string>();
  const flags: ProjectFlag[] = [];
  for (const page of pages) {
    for (const flag of page.data?.features ?? []) {
      if (!seen.has(flag.name)) flags.push(flag);
      seen.add(flag.name);
    }
  }
  return {
    flags,
    loading: pages.some((page) => page.isPending),
    error: pages.find((page) => page.error)?.error ?? null,
  };
}

/**
 * Every active flag of the project, fetched a page at a time: the first page says how many
 * there are, the others are then asked for together, and the list grows as they arrive.
 */
export function useProjectFlags(projectId: string) {
  const first = useQuery({
    queryKey: queryKeys.projects.flagsPage(projectId, 0),
    queryFn: () => searchPage(projectId, 0),
  });
  const total = first.data?.total ?? 0;
  const offsets = Array.from({ length: Math.max(1, Math.ceil(total / PAGE)) }, (_, i) => i * PAGE);
  const combined = useQueries({
    queries: offsets.map((offset) => ({
      queryKey: queryKeys.projects.flagsPage(projectId, offset),
      queryFn: () => searchPage(projectId, offset),
    })),
    combine: combinePages,
  });
  return { ...combined, total };
}

type Environment = ProjectFlag["environments"][number];

/** The cached page that holds a flag, to change or refresh it alone. */
function pageHolding(client: ReturnType<typeof useQueryClient>, projectId: string, name: string) {
  return client
    .getQueriesData<Page>({ queryKey: queryKeys.projects.flags(projectId) })
    .find(([, page]) => page?.features.some((flag) => flag.name === name));
}

/**
 * Changes a flag where the list shows it at once, and takes the change back if the service
 * refuses (the refusal itself is notified for every failed write).
 */
function useOptimisticFlag<Vars extends { flag: string }>(
  projectId: string,
  send: (vars: Vars) => Promise<unknown>,
  change: (flag: ProjectFlag, vars: Vars) => ProjectFlag,
  alsoChanged: (vars: Vars) => QueryKey[] = () => [],
) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: send,
    onMutate: async (vars) => {
      const held = pageHolding(client, projectId, vars.flag);
      if (!held) return undefined;
      const [key, before] = held;
      await client.cancelQueries({ queryKey: key, exact: true });
      client.setQueryData<Page>(
        key,
        (page) =>
          page && {
            ...page,
            features: page.features.map((flag) => (flag.name === vars.flag ? change(flag, vars) : flag)),
          },
      );
      return { key, before };
    },
    onError: (_error, _vars, context) => {
      if (context) client.setQueryData(context.key, context.before);
    },
    onSettled: async (_data, _error, vars, context) => {
      await Promise.all([
        ...(context ? [client.invalidateQueries({ queryKey: context.key, exact: true })] : []),
        client.invalidateQueries({ queryKey: queryKeys.flags.detail(projectId, vars.flag) }),
        ...alsoChanged(vars).map((queryKey) => client.invalidateQueries({ queryKey })),
      ]);
    },
  });
}

export interface Switching {
  flag: string;
  environment: string;
  enabled: boolean;
}

/**
 * Switches a flag on or off in one environment, or adds the switch to the person's draft
 * where the environment requires change requests (the list then stays as it is).
 */
export function useSwitchFlag(projectId: string) {
  const gate = useChangeGate(projectId);
  return useOptimisticFlag<Switching>(
    projectId,
    ({ flag, environment, enabled }) => {
      const params = { path: { projectId, featureName: flag, environment } };
      return gate.send(environment, { feature: flag, action: "updateEnabled", payload: { enabled } }, () =>
        unwrap(
          enabled
            ? api.POST(
                "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/on",
                { params },
              )
            : api.POST(
                "/api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/off",
                { params },
              ),
        ),
      );
    },
    (flag, { environment, enabled }) =>
      gate.requiresRequest(environment)
        ? flag
        : {
            ...flag,
            environments: flag.environments.map(
              (env): Environment => (env.name === environment ? { ...env, enabled } : env),
            ),
          },
    () => [queryKeys.events.all()],
  );
}

/** Marks a flag as the person's favourite, or not. */
export function useFavoriteFlag(projectId: string) {
  return useOptimisticFlag<{ flag: string; favorite: boolean }>(
    projectId,
    ({ flag, favorite }) => {
      const params = { params: { path: { projectId, featureName: flag } } };
      return unwrap(
        favorite
          ? api.POST("/api/admin/projects/{projectId}/features/{featureName}/favorites", params)
          : api.DELETE("/api/admin/projects/{projectId}/features/{featureName}/favorites", params),
      );
    },
    (flag, { favorite }) => ({ ...flag, favorite }),
  );
}

/** Marks a project as the person's favourite, or not. */
export function useFavoriteProject(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (favorite: boolean) => {
      const params = { params: { path: { projectId } } };
      return unwrap(
        favorite
          ? api.POST("/api/admin/projects/{projectId}/favorites", params)
          : api.DELETE("/api/admin/projects/{projectId}/favorites", params),
      );
    },
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.projects.detail(projectId), exact: true }),
        client.invalidateQueries({ queryKey: queryKeys.projects.list() }),
      ]),
  });
}
