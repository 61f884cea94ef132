import { Badge, Box, Group, Switch, Table, Text, UnstyledButton, VisuallyHidden } from "@mantine/core";
import { IconArrowDown, IconArrowsSort, IconArrowUp } from "@tabler/icons-react";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useRef } from "react";
import { Link } from "react-router";
import type { Verdict } from "../auth/session";
import { FavoriteStar } from "../components/favorite-star";
import { RelativeTime } from "../components/relative-time";
import { type Sort, type SortKey, tagLabel } from "./flag-filters";
import { stageLabel, typeLabel } from "./flag-kinds";
import { flagPath } from "./paths";
import type { ProjectFlag, Switching } from "./queries";

// Rows have one height, so the virtualiser knows where each is without measuring.
const ROW_HEIGHT = 56;
const HEADER_HEIGHT = 40;
const TAGS_SHOWN = 2;

interface Props {
  projectId: string;
  flags: ProjectFlag[];
  /** The project's environments, in their order: a switch column each. */
  environments: string[];
  /** Whether the person may switch flags in each environment. */
  switchable: Record<string, Verdict>;
  sort: Sort;
  onSort: (key: SortKey) => void;
  onSwitch: (change: Switching) => void;
  onFavorite: (flag: string, favorite: boolean) => void;
}

/**
 * The project's flags, however many: only the rows in view (and a few either side) are in
 * the page, so scrolling and filtering thousands stays smooth. `aria-rowcount` and
 * `aria-rowindex` tell assistive technology where the visible rows sit in the whole.
 */
export function FlagTable({
  projectId,
  flags,
  environments,
  switchable,
  sort,
  onSort,
  onSwitch,
  onFavorite,
}: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: flags.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const rows = virtualizer.getVirtualItems();
  const before = rows[0]?.start ?? 0;
  const header = (key: SortKey, label: string, width?: number) => (
    <SortableHeader key={key} column={key} label={label} sort={sort} onSort={onSort} width={width} />
  );

  return (
    <Box ref={scroller} h="calc(100dvh - 300px)" mih={320} style={{ overflow: "auto" }}>
      {/* As tall as every row would be, so the scrollbar is true; the rows in view are moved into place. */}
      <Box h={virtualizer.getTotalSize() + HEADER_HEIGHT}>
        <Table
          stickyHeader
          highlightOnHover
          aria-label="Flags"
          aria-rowcount={flags.length + 1}
          style={{ tableLayout: "fixed", minWidth: 900 + environments.length * 110 }}
        >
          <Table.Thead>
            <Table.Tr aria-rowindex={1}>
              <Table.Th w={48}>
                <VisuallyHidden>Favourite</VisuallyHidden>
              </Table.Th>
              {header("name", "Name")}
              {header("type", "Type", 120)}
              {header("createdAt", "Created", 130)}
              {header("lastSeenAt", "Last seen", 130)}
              <Table.Th w={110}>Stage</Table.Th>
              <Table.Th w={180}>Tags</Table.Th>
              {environments.map((environment) => (
                <Table.Th key={environment} w={110}>
                  <Text size="sm" fw={700} truncate title={switchable[environment]?.reason}>
                    {environment}
                  </Text>
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody style={{ transform: `translateY(${before}px)` }}>
            {rows.map((row) => {
              const flag = flags[row.index]!;
              return (
                <FlagRow
                  key={flag.name}
                  index={row.index}
                  projectId={projectId}
                  flag={flag}
                  environments={environments}
                  switchable={switchable}
                  onSwitch={onSwitch}
                  onFavorite={onFavorite}
                />
              );
            })}
          </Table.Tbody>
        </Table>
      </Box>
    </Box>
  );
}

function SortableHeader({
  column,
  label,
  sort,
  onSort,
  width,
}: {
  column: SortKey;
  label: string;
  sort: Sort;
  onSort: (key: SortKey) => void;
  width?: number | undefined;
}) {
  const active = sort.key === column;
  const Icon = !active ? IconArrowsSort : sort.descending ? IconArrowDown : IconArrowUp;
  return (
    <Table.Th w={width} aria-sort={active ? (sort.descending ? "descending" : "ascending") : "none"}>
      <UnstyledButton onClick={() => onSort(column)} fw={700} fz="sm">
        <Group gap={4} wrap="nowrap">
          {label}
          <Icon size={14} aria-hidden opacity={active ? 1 : 0.4} />
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}

// Rows are plain elements with Mantine's table classes: a row mounts for every few pixels
// scrolled, and Mantine's style props cost more than the row itself.
const cell = Table.classes.td;
const ellipsis = { overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" } as const;
const dimmed = { ...ellipsis, color: "var(--mantine-color-dimmed)", fontSize: "var(--mantine-font-size-xs)" };

const FlagRow = memo(function FlagRow({
  index,
  projectId,
  flag,
  environments,
  switchable,
  onSwitch,
  onFavorite,
}: Omit<Props, "flags" | "sort" | "onSort"> & { index: number; flag: ProjectFlag }) {
  const byName = new Map(flag.environments.map((env) => [env.name, env]));
  const extraTags = flag.tags.length - TAGS_SHOWN;
  return (
    <tr
      className={Table.classes.tr}
      data-with-row-border
      data-hover
      aria-rowindex={index + 2}
      style={{ height: ROW_HEIGHT }}
    >
      <td className={cell}>
        <FavoriteStar
          name={flag.name}
          favorite={flag.favorite}
          size="sm"
          onChange={(favorite) => onFavorite(flag.name, favorite)}
        />
      </td>
      <td className={cell}>
        <Link
          to={flagPath(projectId, flag.name)}
          style={{ ...ellipsis, display: "block", fontWeight: 600, color: "var(--mantine-color-anchor)" }}
        >
          {flag.name}
        </Link>
        {flag.description && (
          <div style={dimmed} title={flag.description}>
            {flag.description}
          </div>
        )}
      </td>
      <td className={cell}>
        <div style={ellipsis}>{typeLabel(flag.type)}</div>
        {flag.stale && (
          <Badge size="xs" color="orange" variant="light">
            stale
          </Badge>
        )}
      </td>
      <td className={cell}>
        <RelativeTime value={flag.createdAt} />
      </td>
      <td className={cell}>
        <RelativeTime value={flag.lastSeenAt} />
      </td>
      <td className={cell}>{flag.lifecycle ? stageLabel(flag.lifecycle.stage) : "—"}</td>
      <td className={cell}>
        <div style={{ display: "flex", gap: 4, overflow: "hidden" }}>
          {flag.tags.slice(0, TAGS_SHOWN).map((tag) => (
            <Badge
              key={tagLabel(tag)}
              size="sm"
              variant="outline"
              tt="none"
              style={{ flexShrink: 1, minWidth: 0 }}
            >
              {tagLabel(tag)}
            </Badge>
          ))}
          {extraTags > 0 && (
            <span style={dimmed} title={flag.tags.slice(TAGS_SHOWN).map(tagLabel).join(", ")}>
              +{extraTags}
            </span>
          )}
        </div>
      </td>
      {environments.map((environment) => {
        const state = byName.get(environment);
        const verdict = switchable[environment] ?? { allowed: false, reason: undefined };
        if (!state) {
          return (
            <td key={environment} className={cell}>
              —
            </td>
          );
        }
        return (
          <td key={environment} className={cell}>
            <span style={{ display: "inline-block" }} title={verdict.reason}>
              <Switch
                aria-label={`${flag.name} in ${environment}`}
                aria-description={verdict.reason}
                checked={state.enabled}
                disabled={!verdict.allowed}
                onChange={(event) =>
                  onSwitch({ flag: flag.name, environment, enabled: event.currentTarget.checked })
                }
              />
            </span>
          </td>
        );
      })}
    </tr>
  );
});
