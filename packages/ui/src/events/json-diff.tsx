import { Box, Text } from "@mantine/core";
import { structuredPatch } from "diff";
import { plural } from "../components/plural";

/** Lines of unchanged JSON kept around each change; longer unchanged stretches are folded. */
const CONTEXT = 3;

// Keys sorted at every level: the service stores JSON whose key order is its own, and the
// same object must print the same way on both sides for the diff to show only what changed.
const sorted = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, inner]) => [key, sorted(inner)]),
    );
  }
  return value;
};

/** Pretty JSON ending in a newline; nothing for a side that does not exist (before a creation). */
const print = (value: unknown) =>
  value === null || value === undefined ? "" : `${JSON.stringify(sorted(value), null, 2)}\n`;

type Row = { kind: "added" | "removed" | "same"; text: string } | { kind: "folded"; count: number };

const KINDS = { "+": "added", "-": "removed", " ": "same" } as const;

function rows(before: string, after: string): Row[] {
  const { hunks } = structuredPatch("before", "after", before, after, undefined, undefined, {
    context: CONTEXT,
  });
  const total = before === "" ? 0 : before.split("\n").length - 1;
  const out: Row[] = [];
  let line = 1;
  for (const hunk of hunks) {
    // An empty side's hunk starts at 0, not 1.
    const start = Math.max(hunk.oldStart, 1);
    if (start > line) out.push({ kind: "folded", count: start - line });
    for (const text of hunk.lines) {
      const kind = KINDS[text[0] as keyof typeof KINDS];
      if (kind) out.push({ kind, text: text.slice(1) });
    }
    line = start + hunk.oldLines;
  }
  if (hunks.length > 0 && total >= line) out.push({ kind: "folded", count: total - line + 1 });
  return out;
}

const MARK = { added: "+", removed: "-", same: " " } as const;
const BACKGROUND = {
  added: "var(--mantine-color-green-light)",
  removed: "var(--mantine-color-red-light)",
  same: undefined,
} as const;

/**
 * What a change did to a JSON document: a line diff of both sides pretty-printed, each
 * changed line marked + or - in its text as well as by colour, unchanged stretches folded.
 */
export function JsonDiff({ before, after, label }: { before: unknown; after: unknown; label: string }) {
  const old = print(before);
  const changed = print(after);
  const lines = old === changed ? [] : rows(old, changed);
  const added = lines.filter((row) => row.kind === "added").length;
  const removed = lines.filter((row) => row.kind === "removed").length;
  return (
    <Box component="section" aria-label={label}>
      {lines.length === 0 ? (
        <Text size="sm" c="dimmed">
          No changes
        </Text>
      ) : (
        <>
          <Text size="xs" c="dimmed" mb={4}>
            {plural(added, "line")} added, {removed} removed
          </Text>
          <Box
            component="pre"
            m={0}
            p="xs"
            fz="xs"
            ff="monospace"
            bd="1px solid var(--mantine-color-default-border)"
            // Long values wrap rather than widen the table the diff sits in.
            style={{
              borderRadius: "var(--mantine-radius-sm)",
              whiteSpace: "pre-wrap",
              overflowWrap: "anywhere",
            }}
          >
            {lines.map((row, index) =>
              row.kind === "folded" ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity beyond their place
                <Box key={index} c="dimmed" fs="italic">
                  {`  ⋯ ${plural(row.count, "unchanged line")}`}
                </Box>
              ) : (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity beyond their place
                <Box key={index} data-change={row.kind} style={{ background: BACKGROUND[row.kind] }}>
                  {`${MARK[row.kind]} ${row.text}`}
                </Box>
              ),
            )}
          </Box>
        </>
      )}
    </Box>
  );
}
