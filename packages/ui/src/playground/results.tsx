import {
  Alert,
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { IconChevronDown, IconChevronRight } from "@tabler/icons-react";
import { Fragment, useState } from "react";
import { Link } from "react-router";
import { plural } from "../components/plural";
import { Explanation } from "./explanation";
import type { Evaluation, PlaygroundAnswer, PlaygroundFlag } from "./playground-query";

type Shown = "all" | "on" | "off";

const flagPath = (flag: PlaygroundFlag) =>
  `/projects/${encodeURIComponent(flag.projectId)}/features/${encodeURIComponent(flag.name)}`;

/** The context values an evaluation was made for, in a line: what tells the combinations apart. */
const describeContext = (context: Evaluation["context"]) =>
  Object.entries(context)
    .map(([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");

/** Every flag's answer in each environment, filterable, each with the reasons on demand. */
export function Results({ answer }: { answer: PlaygroundAnswer }) {
  const environments = answer.input.environments;
  const [search, setSearch] = useState("");
  const [shown, setShown] = useState<Shown>("all");
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (name: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(name)) next.add(name);
      return next;
    });

  const term = search.trim().toLowerCase();
  const evaluations = (flag: PlaygroundFlag) => Object.values(flag.environments).flat();
  const flags = answer.features.filter((flag) => {
    if (term && !flag.name.toLowerCase().includes(term)) return false;
    if (shown === "on") return evaluations(flag).some((evaluation) => evaluation.isEnabled);
    if (shown === "off") return evaluations(flag).some((evaluation) => !evaluation.isEnabled);
    return true;
  });
  const invalid = answer.warnings?.invalidContextProperties ?? [];

  return (
    <Stack>
      {invalid.length > 0 && (
        <Alert color="yellow" title="Context fields left out">
          These fields were not text and were not used: {invalid.join(", ")}.
        </Alert>
      )}
      <Group align="flex-end">
        <TextInput
          label="Filter by flag name"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          w={280}
        />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="playground-shown">
            Show
          </Text>
          <SegmentedControl
            aria-labelledby="playground-shown"
            value={shown}
            onChange={(value) => setShown(value as Shown)}
            data={[
              { value: "all", label: "All flags" },
              { value: "on", label: "On" },
              { value: "off", label: "Off" },
            ]}
          />
        </Stack>
        <Text size="sm" c="dimmed" aria-live="polite">
          {flags.length} of {plural(answer.features.length, "flag")}
          {shown !== "all" && environments.length > 1 && ` (${shown} in at least one environment)`}
        </Text>
      </Group>
      <Table aria-label="Playground results" verticalSpacing="xs" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Flag</Table.Th>
            {environments.map((environment) => (
              <Table.Th key={environment}>{environment}</Table.Th>
            ))}
            <Table.Th>Why</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {flags.map((flag) => {
            const expanded = open.has(flag.name);
            const whyId = `why-${flag.projectId}-${flag.name}`;
            return (
              <Fragment key={`${flag.projectId}/${flag.name}`}>
                <Table.Tr>
                  <Table.Td>
                    <Stack gap={0}>
                      <Anchor component={Link} to={flagPath(flag)} fw={600}>
                        {flag.name}
                      </Anchor>
                      <Text size="xs" c="dimmed">
                        {flag.projectId}
                      </Text>
                    </Stack>
                  </Table.Td>
                  {environments.map((environment) => (
                    <Table.Td key={environment}>
                      <Outcome evaluations={flag.environments[environment] ?? []} />
                    </Table.Td>
                  ))}
                  <Table.Td>
                    <Button
                      variant="subtle"
                      size="compact-sm"
                      aria-label={`Why ${flag.name}`}
                      aria-expanded={expanded}
                      aria-controls={expanded ? whyId : undefined}
                      leftSection={expanded ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
                      onClick={() => toggle(flag.name)}
                    >
                      Why
                    </Button>
                  </Table.Td>
                </Table.Tr>
                {expanded && (
                  <Table.Tr id={whyId}>
                    <Table.Td colSpan={environments.length + 2}>
                      <Stack gap="lg" component="section" aria-label={`Why ${flag.name} is on or off`}>
                        {environments.map((environment) => (
                          <EnvironmentReasons
                            key={environment}
                            environment={environment}
                            evaluations={flag.environments[environment] ?? []}
                          />
                        ))}
                      </Stack>
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            );
          })}
        </Table.Tbody>
      </Table>
      {flags.length === 0 && (
        <Text c="dimmed">
          {answer.features.length === 0 ? "No flags in the projects chosen." : "No flag matches the filter."}
        </Text>
      )}
    </Stack>
  );
}

/** On or off in words (not colour alone), with the variant; for several contexts, how many were on. */
function Outcome({ evaluations }: { evaluations: Evaluation[] }) {
  const [only] = evaluations;
  if (!only) return <Text c="dimmed">—</Text>;
  if (evaluations.length > 1) {
    const on = evaluations.filter((evaluation) => evaluation.isEnabled).length;
    return (
      <Badge
        color={on === 0 ? "gray" : on === evaluations.length ? "green" : "blue"}
        variant="light"
        tt="none"
      >
        On for {on} of {plural(evaluations.length, "context")}
      </Badge>
    );
  }
  return (
    <Group gap={6}>
      <Badge
        color={only.isEnabled ? "green" : "gray"}
        variant={only.isEnabled ? "filled" : "light"}
        tt="none"
      >
        {only.isEnabled ? "On" : "Off"}
      </Badge>
      {!only.isEnabled && only.strategies.result === "unknown" && (
        <Text span size="xs" c="dimmed">
          (unknown)
        </Text>
      )}
      {only.isEnabled && only.variant.enabled && (
        <Text span size="xs">
          variant <Code>{only.variant.name}</Code>
        </Text>
      )}
    </Group>
  );
}

function EnvironmentReasons({
  environment,
  evaluations,
}: {
  environment: string;
  evaluations: Evaluation[];
}) {
  return (
    <Stack gap="xs">
      <Title order={4}>In {environment}</Title>
      {evaluations.length === 1 && evaluations[0] ? (
        <Explanation evaluation={evaluations[0]} />
      ) : (
        evaluations.map((evaluation) => (
          <Stack key={describeContext(evaluation.context)} gap={4} pl="sm">
            <Text size="sm">
              For <Code>{describeContext(evaluation.context)}</Code>
            </Text>
            <Explanation evaluation={evaluation} />
          </Stack>
        ))
      )}
    </Stack>
  );
}
