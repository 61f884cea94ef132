// The guides in docs/ use a small part of Markdown: headings, paragraphs, lists, fenced code,
// tables, and inline code, bold and links. This reads that part, so that the guides are
// readable in the browser without a Markdown library; anything else shows as written.

export type Block =
  | { kind: "heading"; level: 1 | 2 | 3 | 4 | 5 | 6; text: string; id: string }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; ordered: boolean; items: string[] }
  | { kind: "code"; text: string }
  | { kind: "table"; head: string[]; rows: string[][] };

export type Inline =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "strong"; text: string }
  | { kind: "link"; text: string; href: string };

const FENCE = /^(```|~~~)/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const LIST_ITEM = /^(\s*)([-*+]|\d+[.)])\s+/;
const TABLE_RULE = /^\|?[\s:|-]+\|?$/;

/** The id a heading's anchor has, as GitHub makes it, so that links such as `production.md#settings` land. */
export function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** A guide's blocks, in order. */
export function parseGuide(markdown: string): Block[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: Block[] = [];
  let index = 0;
  const take = (until: (line: string) => boolean): string[] => {
    const taken: string[] = [];
    while (index < lines.length && !until(lines[index] ?? "")) taken.push(lines[index++] ?? "");
    return taken;
  };
  while (index < lines.length) {
    const line = lines[index] ?? "";
    const fence = FENCE.exec(line)?.[1];
    const heading = HEADING.exec(line);
    if (fence) {
      index++;
      blocks.push({ kind: "code", text: take((next) => next.startsWith(fence)).join("\n") });
      index++;
    } else if (heading) {
      const text = heading[2] ?? "";
      const level = (heading[1] ?? "#").length as 1 | 2 | 3 | 4 | 5 | 6;
      blocks.push({ kind: "heading", level, text, id: anchor(text.replaceAll("`", "")) });
      index++;
    } else if (line.startsWith("|")) {
      const [head = [], ...rows] = take((next) => !next.startsWith("|"))
        .filter((row) => !TABLE_RULE.test(row))
        .map(cells);
      blocks.push({ kind: "table", head, rows });
    } else if (line.trim() === "") {
      index++;
    } else {
      const paragraph = take((next) => next.trim() === "" || FENCE.test(next) || HEADING.test(next));
      blocks.push(LIST_ITEM.test(line) ? list(paragraph) : { kind: "paragraph", text: joined(paragraph) });
    }
  }
  return blocks;
}

/** The first top-level heading: the guide's title. */
export function guideTitle(markdown: string): string | undefined {
  for (const block of parseGuide(markdown))
    if (block.kind === "heading" && block.level === 1) return block.text;
  return undefined;
}

/** A paragraph's text with inline code, bold and links picked out. */
export function parseInline(text: string): Inline[] {
  const parts: Inline[] = [];
  let last = 0;
  for (const match of text.matchAll(/`([^`]+)`|\*\*(.+?)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g)) {
    if (match.index > last) parts.push({ kind: "text", text: text.slice(last, match.index) });
    const [, code, strong, label, href] = match;
    if (code !== undefined) parts.push({ kind: "code", text: code });
    else if (strong !== undefined) parts.push({ kind: "strong", text: strong });
    else parts.push({ kind: "link", text: (label ?? "").replaceAll("`", ""), href: href ?? "" });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ kind: "text", text: text.slice(last) });
  return parts;
}

/**
 * Where a guide's link leads in the UI: another guide (`proxy.md#x`) is its page, a web
 * address stays one; a file of the repository is not served, and leads nowhere.
 */
export function linkTarget(href: string): { route: string } | { url: string } | undefined {
  const guide = /^([\w-]+)\.md(#.*)?$/.exec(href);
  if (guide) return { route: `/guides/${guide[1]}${guide[2] ?? ""}` };
  if (href.startsWith("#")) return { route: href };
  if (/^https?:\/\//.test(href)) return { url: href };
  return undefined;
}

const joined = (lines: string[]) => lines.map((line) => line.trim()).join(" ");

function list(lines: string[]): Block {
  const items: string[][] = [];
  for (const line of lines) {
    const item = LIST_ITEM.exec(line);
    // An indented item reads as part of the item above it: the guides nest no lists.
    if (item && (item[1] ?? "").length === 0) items.push([line.slice(item[0].length)]);
    else items.at(-1)?.push(line);
  }
  return { kind: "list", ordered: /^\d/.test(lines[0]?.trim() ?? ""), items: items.map(joined) };
}

/** A table row's cells; a `|` inside inline code or escaped belongs to the cell. */
function cells(row: string): string[] {
  const found: string[] = [];
  let cell = "";
  let code = false;
  const body = row.trim().replace(/^\|/, "");
  for (let at = 0; at < body.length; at++) {
    const char = body[at];
    if (char === "\\" && body[at + 1] === "|") {
      cell += "|";
      at++;
    } else if (char === "|" && !code) {
      found.push(cell.trim());
      cell = "";
    } else {
      if (char === "`") code = !code;
      cell += char;
    }
  }
  if (cell.trim() !== "") found.push(cell.trim());
  return found;
}
