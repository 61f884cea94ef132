import { Button, Kbd } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { Spotlight, type SpotlightActionData, spotlight } from "@mantine/spotlight";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useNavigate } from "react-router";
import { api, unwrap } from "../api/client";
import { useCan } from "../auth/session";
import { flagPath, projectPath } from "../projects/paths";
import { queryKeys } from "../query-keys";
import { SCREENS } from "./screens";

/** Ctrl/Cmd-K: jump to any screen, project or flag by typing part of its name. */
export function CommandPalette() {
  const navigate = useNavigate();
  const can = useCan();
  const [query, setQuery] = useState("");
  const projects = useQuery({
    queryKey: queryKeys.projects.list(),
    queryFn: () => unwrap(api.GET("/api/admin/projects")),
  });
  // Flags are too many to list up front: the service searches them once typing pauses.
  const [typed] = useDebouncedValue(query.trim(), 250);
  const flags = useQuery({
    queryKey: queryKeys.flags.search(typed),
    queryFn: () =>
      unwrap(api.GET("/api/admin/search/features", { params: { query: { query: typed, limit: "20" } } })),
    enabled: typed.length > 0,
    placeholderData: keepPreviousData,
  });

  const actions = useMemo<SpotlightActionData[]>(() => {
    const go = (path: string) => () => navigate(path);
    const projectNames = new Map(
      (projects.data?.projects ?? []).map((project) => [project.id, project.name]),
    );
    return [
      ...SCREENS.filter((screen) => !screen.permission || can(screen.permission).allowed).map((screen) => ({
        id: `screen:${screen.path}`,
        label: screen.label,
        description: `${screen.section} screen`,
        onClick: go(screen.path),
      })),
      ...(projects.data?.projects ?? []).map((project) => ({
        id: `project:${project.id}`,
        label: project.name,
        description: `Project ${project.id}`,
        onClick: go(projectPath(project.id)),
      })),
      ...(typed ? (flags.data?.features ?? []) : []).map((flag) => ({
        id: `flag:${flag.name}`,
        label: flag.name,
        description: `Flag in ${projectNames.get(flag.project) ?? flag.project}`,
        // The service matched the description too: the palette's own filter should keep it.
        keywords: flag.description ?? undefined,
        onClick: go(flagPath(flag.project, flag.name)),
      })),
    ];
  }, [projects.data, flags.data, typed, navigate, can]);

  return (
    <>
      <Button variant="default" onClick={spotlight.open} rightSection={<Kbd size="xs">Ctrl K</Kbd>}>
        Jump to…
      </Button>
      <Spotlight
        actions={actions}
        query={query}
        onQueryChange={setQuery}
        shortcut={["mod + K"]}
        limit={30}
        nothingFound="Nothing matches"
        searchProps={{ placeholder: "Screen, project or flag", "aria-label": "Jump to" }}
        highlightQuery
      />
    </>
  );
}
