import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { anchor, guideTitle, linkTarget, parseGuide, parseInline } from "./markdown";

const docs = join(dirname(fileURLToPath(import.meta.url)), "../../../../docs");

describe("a guide's blocks", () => {
  it("reads headings, paragraphs, lists, code and tables, and a # inside code is code", () => {
    const blocks = parseGuide(
      [
        "# Running it",
        "",
        "One paragraph",
        "over two lines.",
        "",
        "- first item",
        "  carried on",
        "- second",
        "",
        "```sh",
        "# a comment, not a heading",
        "npm start",
        "```",
        "",
        "## Reverse proxy, TLS and `TRUST_PROXY`",
        "",
        "| name | meaning |",
        "|---|---|",
        "| `a|b` | x \\| y |",
      ].join("\n"),
    );
    expect(blocks).toEqual([
      { kind: "heading", level: 1, text: "Running it", id: "running-it" },
      { kind: "paragraph", text: "One paragraph over two lines." },
      { kind: "list", ordered: false, items: ["first item carried on", "second"] },
      { kind: "code", text: "# a comment, not a heading\nnpm start" },
      {
        kind: "heading",
        level: 2,
        text: "Reverse proxy, TLS and `TRUST_PROXY`",
        id: "reverse-proxy-tls-and-trust_proxy",
      },
      { kind: "table", head: ["name", "meaning"], rows: [["`a|b`", "x | y"]] },
    ]);
  });

  it("picks out inline code, bold and links", () => {
    expect(parseInline("Set `PORT`, **first**, see [the `proxy` guide](proxy.md#run).")).toEqual([
      { kind: "text", text: "Set " },
      { kind: "code", text: "PORT" },
      { kind: "text", text: ", " },
      { kind: "strong", text: "first" },
      { kind: "text", text: ", see " },
      { kind: "link", text: "the proxy guide", href: "proxy.md#run" },
      { kind: "text", text: "." },
    ]);
  });

  it("leads a link to another guide to its page, and a repository file nowhere", () => {
    expect(linkTarget("production.md#settings")).toEqual({ route: "/guides/production#settings" });
    expect(linkTarget("https://example.com/x")).toEqual({ url: "https://example.com/x" });
    expect(linkTarget("../packages/proxy/README.md")).toBeUndefined();
  });

  it("gives every guide in docs/ a title, and every link between them a heading to land on", () => {
    const guides = readdirSync(docs).filter((file) => file.endsWith(".md"));
    const ids = new Map(
      guides.map((file) => {
        const text = readFileSync(join(docs, file), "utf8");
        expect(guideTitle(text), file).toBeTruthy();
        return [file, parseGuide(text).flatMap((block) => (block.kind === "heading" ? [block.id] : []))];
      }),
    );
    for (const [file] of ids) {
      const text = readFileSync(join(docs, file), "utf8");
      for (const [, target, section] of text.matchAll(/\]\(([\w-]+\.md)(?:#([\w-]+))?\)/g)) {
        expect(ids.has(target ?? ""), `${file} links to ${target}`).toBe(true);
        if (section)
          expect(ids.get(target ?? ""), `${file} links to ${target}#${section}`).toContain(section);
      }
    }
  });

  it("makes anchors as GitHub does", () => {
    expect(anchor("Slack (incoming webhook)")).toBe("slack-incoming-webhook");
    expect(anchor("1. Start Signalbox")).toBe("1-start-signalbox");
  });
});
