import GUIDES from "virtual:guides";
import { Alert, Anchor, Code, List, Stack, Table, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { Fragment, useEffect } from "react";
import { Link, useLocation, useParams } from "react-router";
import { ErrorPanel } from "../components/error-panel";
import { queryKeys } from "../query-keys";
import { type Block, type Inline, linkTarget, parseGuide, parseInline } from "./markdown";

async function fetchGuide(name: string): Promise<Block[]> {
  const response = await fetch(`/guides/${name}.md`);
  if (!response.ok)
    throw new Error(`The guide could not be loaded: the service answered ${response.status}.`);
  return parseGuide(await response.text());
}

/** One of the repository's guides (docs/*.md), as the UI's build carries it. */
export default function GuidePage() {
  const { name = "" } = useParams();
  const { hash } = useLocation();
  const known = GUIDES.some((guide) => guide.name === name);
  const guide = useQuery({
    queryKey: queryKeys.guides.detail(name),
    queryFn: () => fetchGuide(name),
    enabled: known,
  });

  // The page is drawn after the link that named a section was followed: go there once it is.
  useEffect(() => {
    if (guide.data && hash) document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView();
  }, [guide.data, hash]);

  if (!known) {
    return (
      <Alert color="yellow" title="No such guide">
        This build of Signalbox has no guide named {name}; the help menu lists those it has.
      </Alert>
    );
  }
  if (guide.isError) return <ErrorPanel error={guide.error} />;
  return (
    <Stack component="article" maw={900} gap="sm">
      {guide.data?.map((block, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the blocks have no identity of their own
        <BlockView key={index} block={block} />
      ))}
    </Stack>
  );
}

function BlockView({ block }: { block: Block }) {
  switch (block.kind) {
    case "heading":
      return (
        <Title order={block.level} id={block.id} mt={block.level === 1 ? 0 : "md"}>
          <Inlines text={block.text} />
        </Title>
      );
    case "paragraph":
      return (
        <Text>
          <Inlines text={block.text} />
        </Text>
      );
    case "list":
      return (
        <List type={block.ordered ? "ordered" : "unordered"} spacing={4}>
          {block.items.map((item, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the items have no identity of their own
            <List.Item key={index}>
              <Inlines text={item} />
            </List.Item>
          ))}
        </List>
      );
    case "code":
      return <Code block>{block.text}</Code>;
    case "table":
      return (
        <Table.ScrollContainer minWidth={600}>
          <Table withTableBorder verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                {block.head.map((cell, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are known by their place
                  <Table.Th key={index}>
                    <Inlines text={cell} />
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {block.rows.map((row, rowIndex) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows are known by their place
                <Table.Tr key={rowIndex}>
                  {row.map((cell, index) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: columns are known by their place
                    <Table.Td key={index}>
                      <Inlines text={cell} />
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      );
  }
}

function Inlines({ text }: { text: string }) {
  return parseInline(text).map((part, index) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: the parts have no identity of their own
    <Fragment key={index}>
      <InlineView part={part} />
    </Fragment>
  ));
}

function InlineView({ part }: { part: Inline }) {
  if (part.kind === "code") return <Code>{part.text}</Code>;
  if (part.kind === "strong") return <strong>{part.text}</strong>;
  if (part.kind === "text") return part.text;
  const target = linkTarget(part.href);
  if (!target) return part.text;
  return "route" in target ? (
    <Anchor component={Link} to={target.route}>
      {part.text}
    </Anchor>
  ) : (
    <Anchor href={target.url} target="_blank" rel="noreferrer">
      {part.text}
    </Anchor>
  );
}
