import { Alert, Badge, Code, Group, List, Stack, Table, Text } from "@mantine/core";
import type { Evaluation } from "./playground-query";

type Strategy = Evaluation["strategies"]["data"][number];
type Constraint = Strategy["constraints"][number];
type Segment = Strategy["segments"][number];

/** A result in words as well as colour: what passed, what failed, what could not be told. */
export function Verdict({ result, yes, no }: { result: boolean | "unknown"; yes: string; no: string }) {
  if (result === "unknown") {
    return (
      <Badge color="yellow" variant="light" tt="none">
        Unknown
      </Badge>
    );
  }
  return (
    <Badge color={result ? "green" : "red"} variant="light" tt="none">
      {result ? `✓ ${yes}` : `✗ ${no}`}
    </Badge>
  );
}

/** Why a flag is on or off for one context in one environment, strategy by strategy. */
export function Explanation({ evaluation }: { evaluation: Evaluation }) {
  const { strategies, isEnabled, isEnabledInCurrentEnvironment, hasUnsatisfiedDependency, variant } =
    evaluation;
  const matched = strategies.data.findIndex((strategy) => strategy.result.enabled === true);
  return (
    <Stack gap="sm">
      <Text size="sm" fw={600}>
        {summary(evaluation, matched)}
      </Text>
      {!isEnabledInCurrentEnvironment && (
        <Alert color="gray" title="Disabled in this environment" p="xs">
          The flag is switched off in {evaluation.environment}, so it is off for everyone there.
          {strategies.data.length > 0 && " Were it switched on, its strategies would answer as below."}
        </Alert>
      )}
      {hasUnsatisfiedDependency && (
        <Alert color="orange" title="Unsatisfied dependency" p="xs">
          The flag depends on a parent flag whose requirement this context does not meet, so it is off
          whatever its own strategies say.
        </Alert>
      )}
      {isEnabled && variant.enabled && (
        <Text size="sm">
          Variant <Code>{variant.name}</Code>
          {variant.payload && (
            <>
              {" "}
              with a {variant.payload.type} payload <Code>{variant.payload.value}</Code>
            </>
          )}
        </Text>
      )}
      {strategies.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          No strategies in this environment
          {isEnabledInCurrentEnvironment && ": a flag without strategies is on for everyone when switched on"}
          .
        </Text>
      ) : (
        <List type="ordered" spacing="sm" aria-label="Strategies, in order">
          {strategies.data.map((strategy) => (
            <List.Item key={strategy.id}>
              <StrategyExplanation strategy={strategy} />
            </List.Item>
          ))}
        </List>
      )}
    </Stack>
  );
}

function summary(evaluation: Evaluation, matched: number): string {
  const { isEnabled, isEnabledInCurrentEnvironment, hasUnsatisfiedDependency, strategies } = evaluation;
  if (!isEnabledInCurrentEnvironment) return "Off: disabled in this environment.";
  if (hasUnsatisfiedDependency) return "Off: a dependency is not satisfied.";
  if (isEnabled) {
    const strategy = strategies.data[matched];
    return strategy ? `On: strategy ${matched + 1} (${strategy.title || strategy.name}) matched.` : "On.";
  }
  if (strategies.result === "unknown") {
    return "Off here, but unknown: no strategy matched, and one could not be evaluated by the service (an SDK that implements it may turn the flag on).";
  }
  return "Off: no strategy matched.";
}

function StrategyExplanation({ strategy }: { strategy: Strategy }) {
  const { result } = strategy;
  const rulesPass =
    strategy.constraints.every((constraint) => constraint.result) &&
    strategy.segments.every((segment) => segment.result);
  const parameters = Object.entries(strategy.parameters);
  return (
    <Stack gap={6}>
      <Group gap="xs">
        <Text fw={600} size="sm">
          {strategy.title ? `${strategy.title} (${strategy.name})` : strategy.name}
        </Text>
        {strategy.disabled ? (
          <Badge color="gray" variant="light" tt="none">
            Strategy disabled: skipped
          </Badge>
        ) : (
          <Verdict result={result.enabled} yes="Matched" no="Did not match" />
        )}
      </Group>
      {parameters.length > 0 && (
        <Text size="xs" c="dimmed">
          {parameters.map(([name, value]) => `${name}: ${value}`).join(" · ")}
        </Text>
      )}
      {result.evaluationStatus === "incomplete" && (
        <Text size="xs">
          The service cannot evaluate this strategy (a custom strategy, or one that depends on the SDK's
          host), so only its constraints and segments are known.
        </Text>
      )}
      {result.evaluationStatus === "complete" && !result.enabled && rulesPass && (
        <Text size="xs">
          Its constraints and segments pass; its own rule (such as the rollout percentage) leaves this context
          out.
        </Text>
      )}
      {result.evaluationStatus === "complete" && result.enabled && result.variant?.enabled && (
        <Text size="xs">
          Gives variant <Code>{result.variant.name}</Code>
        </Text>
      )}
      {strategy.constraints.length > 0 && (
        <Constraints constraints={strategy.constraints} label="Constraints" />
      )}
      {strategy.segments.map((segment) => (
        <SegmentExplanation key={segment.id} segment={segment} />
      ))}
    </Stack>
  );
}

function SegmentExplanation({ segment }: { segment: Segment }) {
  return (
    <Stack gap={4} pl="sm" style={{ borderLeft: "2px solid var(--mantine-color-default-border)" }}>
      <Group gap="xs">
        <Text size="sm">
          Segment <strong>{segment.name}</strong>
        </Text>
        <Verdict result={segment.result} yes="Matched" no="Did not match" />
      </Group>
      {segment.constraints.length > 0 && (
        <Constraints constraints={segment.constraints} label={`Constraints of segment ${segment.name}`} />
      )}
    </Stack>
  );
}

/** Each constraint: the context's value, the operator and the values it was compared with, and whether it held. */
function Constraints({ constraints, label }: { constraints: Constraint[]; label: string }) {
  return (
    <Table aria-label={label} fz="xs" verticalSpacing={4} withTableBorder>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Context field</Table.Th>
          <Table.Th>Its value</Table.Th>
          <Table.Th>Operator</Table.Th>
          <Table.Th>Values</Table.Th>
          <Table.Th>Result</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {constraints.map((constraint, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: constraints have no identity beyond their place
          <Table.Tr key={index}>
            <Table.Td>
              <Code>{constraint.contextName}</Code>
            </Table.Td>
            <Table.Td>
              {constraint.contextValue === undefined ? (
                <Text span size="xs" c="dimmed" fs="italic">
                  not set
                </Text>
              ) : (
                <Code>{constraint.contextValue}</Code>
              )}
            </Table.Td>
            <Table.Td>
              {constraint.inverted && "NOT "}
              {constraint.operator}
              {constraint.caseInsensitive && " (any case)"}
            </Table.Td>
            <Table.Td>
              {constraint.values.length > 0 ? constraint.values.join(", ") : constraint.value}
            </Table.Td>
            <Table.Td>
              <Verdict result={constraint.result} yes="Passed" no="Failed" />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
