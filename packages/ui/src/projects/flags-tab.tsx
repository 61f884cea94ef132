import { Button, Group, Loader, Modal, Select, Stack, Text, TextInput } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { IconSearch } from "@tabler/icons-react";
import { useCallback, useDeferredValue, useMemo, useState } from "react";
import { useCan, type Verdict } from "../auth/session";
import { ErrorPanel } from "../components/error-panel";
import { GuardedButton } from "../components/guarded-button";
import { plural } from "../components/plural";
import { ExportForm } from "../import-export/export-dialog";
import { ImportForm } from "../import-export/import-dialog";
import { ConnectSdk } from "../sdk-setup/connect-sdk";
import {
  type FlagFilter,
  filterFlags,
  NO_FILTER,
  type Sort,
  type SortKey,
  sortFlags,
  tagLabel,
} from "./flag-filters";
import { FLAG_TYPES, STAGES } from "./flag-kinds";
import { FlagTable } from "./flag-table";
import { NewFlagForm } from "./new-flag-form";
import {
  type Project,
  type Switching,
  useEnvironments,
  useFavoriteFlag,
  useProjectFlags,
  useSwitchFlag,
} from "./queries";

/** Creating a flag needs the permission, an active project, and room under its flag limit. */
function creationVerdict(project: Project, permitted: Verdict): Verdict {
  if (!permitted.allowed) return permitted;
  if (project.archivedAt) return { allowed: false, reason: "The project is archived: revive it first." };
  if (project.featureLimit !== null && project.featureCount >= project.featureLimit) {
    return {
      allowed: false,
      reason: `The project holds its limit of ${plural(project.featureLimit, "flag")}.`,
    };
  }
  return permitted;
}

export function FlagsTab({ project }: { project: Project }) {
  const can = useCan();
  const projectId = project.id;
  const flags = useProjectFlags(projectId);
  const environments = useEnvironments();
  const switchFlag = useSwitchFlag(projectId);
  const favoriteFlag = useFavoriteFlag(projectId);
  const [creating, { open, close }] = useDisclosure();
  const [exporting, { open: openExport, close: closeExport }] = useDisclosure();
  const [importing, { open: openImport, close: closeImport }] = useDisclosure();
  const [filter, setFilter] = useState<FlagFilter>(NO_FILTER);
  const [sort, setSort] = useState<Sort>({ key: "createdAt", descending: true });
  // Typing stays responsive: the list catches up with the search box when React has time.
  const deferredFilter = useDeferredValue(filter);

  const shown = useMemo(
    () => sortFlags(filterFlags(flags.flags, deferredFilter), sort),
    [flags.flags, deferredFilter, sort],
  );
  const tags = useMemo(
    () => [...new Set(flags.flags.flatMap((flag) => flag.tags.map(tagLabel)))].sort(),
    [flags.flags],
  );
  // The project's environments, in the order the service keeps them.
  const columns = useMemo(() => {
    const used = new Set(project.environments.map((env) => env.environment));
    return environments.data
      ? environments.data.environments.filter((env) => used.has(env.name)).map((env) => env.name)
      : [...used];
  }, [project.environments, environments.data]);
  const switchable = useMemo(
    () =>
      Object.fromEntries(
        columns.map((environment) => [
          environment,
          can("UPDATE_FEATURE_ENVIRONMENT", { project: projectId, environment }),
        ]),
      ),
    [columns, can, projectId],
  );

  const { mutate: switchMutate } = switchFlag;
  const { mutate: favoriteMutate } = favoriteFlag;
  const onSwitch = useCallback((change: Switching) => switchMutate(change), [switchMutate]);
  const onFavorite = useCallback(
    (flag: string, favorite: boolean) => favoriteMutate({ flag, favorite }),
    [favoriteMutate],
  );
  const onSort = useCallback(
    (key: SortKey) =>
      setSort((current) =>
        current.key === key
          ? { key, descending: !current.descending }
          : { key, descending: key !== "name" && key !== "type" },
      ),
    [],
  );
  const set =
    <K extends keyof FlagFilter>(key: K) =>
    (value: FlagFilter[K]) =>
      setFilter((current) => ({ ...current, [key]: value }));
  const filtered = (Object.keys(NO_FILTER) as (keyof FlagFilter)[]).some(
    (key) => filter[key] !== NO_FILTER[key],
  );

  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end">
        <Group align="flex-end" gap="sm">
          <TextInput
            label="Search flags"
            placeholder="Name or description"
            leftSection={<IconSearch size={16} aria-hidden />}
            value={filter.text}
            onChange={(event) => set("text")(event.currentTarget.value)}
            w={240}
          />
          <Select
            label="Type"
            placeholder="Any"
            clearable
            data={FLAG_TYPES.map((type) => ({ value: type.value, label: type.label }))}
            value={filter.type}
            onChange={set("type")}
            w={150}
          />
          <Select
            label="Tag"
            placeholder="Any"
            clearable
            searchable
            data={tags}
            value={filter.tag}
            onChange={set("tag")}
            nothingFoundMessage="No such tag"
            w={180}
          />
          <Select
            label="State"
            placeholder="Any"
            clearable
            data={[
              { value: "active", label: "Active" },
              { value: "stale", label: "Stale" },
            ]}
            value={filter.state}
            onChange={(value) => set("state")(value as FlagFilter["state"])}
            w={120}
          />
          <Select
            label="Lifecycle stage"
            placeholder="Any"
            clearable
            data={STAGES}
            value={filter.stage}
            onChange={set("stage")}
            w={150}
          />
          {filtered && (
            <Button variant="subtle" onClick={() => setFilter(NO_FILTER)}>
              Clear filters
            </Button>
          )}
        </Group>
        <Group gap="sm">
          <Button variant="default" onClick={openExport}>
            Export
          </Button>
          <GuardedButton
            variant="default"
            verdict={
              project.archivedAt
                ? { allowed: false, reason: "The project is archived: revive it first." }
                : { allowed: true, reason: undefined }
            }
            onClick={openImport}
          >
            Import
          </GuardedButton>
          <GuardedButton
            verdict={creationVerdict(project, can("CREATE_FEATURE", { project: projectId }))}
            onClick={open}
          >
            New flag
          </GuardedButton>
        </Group>
      </Group>
      {flags.error && <ErrorPanel error={flags.error} />}
      <Group gap="xs" aria-live="polite">
        <Text size="sm" c="dimmed">
          {flags.loading && flags.flags.length === 0
            ? "Loading flags…"
            : shown.length === flags.flags.length
              ? plural(flags.total, "flag")
              : `${shown.length} of ${plural(flags.total, "flag")}`}
        </Text>
        {flags.loading && flags.flags.length > 0 && (
          <>
            <Loader size="xs" aria-hidden />
            <Text size="sm" c="dimmed">
              {flags.flags.length} loaded
            </Text>
          </>
        )}
      </Group>
      <FlagTable
        projectId={projectId}
        flags={shown}
        environments={columns}
        switchable={switchable}
        sort={sort}
        onSort={onSort}
        onSwitch={onSwitch}
        onFavorite={onFavorite}
      />
      {/* A project without flags is where someone starts: show how an application reads them. */}
      {!flags.loading && !flags.error && flags.total === 0 && <ConnectSdk />}
      <Modal opened={creating} onClose={close} title="New flag" size="lg">
        <NewFlagForm project={project} onDone={close} />
      </Modal>
      <Modal opened={exporting} onClose={closeExport} title={`Export flags of ${project.name}`}>
        <ExportForm projectId={projectId} environments={columns} onDone={closeExport} />
      </Modal>
      <Modal
        opened={importing}
        onClose={closeImport}
        title={`Import flags into ${project.name}`}
        size="lg"
        closeOnClickOutside={false}
      >
        <ImportForm projectId={projectId} environments={columns} onDone={closeImport} />
      </Modal>
    </Stack>
  );
}
