import { Fieldset, Text } from "@mantine/core";
import { type ReactNode, useId } from "react";
import type { Verdict } from "../auth/session";

/**
 * A section of a form someone may not be allowed to change: its fields are disabled and
 * the reason is shown under its title and read as the section's description.
 */
export function GuardedSection({
  legend,
  verdict,
  children,
}: {
  legend: string;
  verdict: Verdict;
  children: ReactNode;
}) {
  const reasonId = useId();
  return (
    <Fieldset
      legend={legend}
      disabled={!verdict.allowed}
      aria-describedby={verdict.allowed ? undefined : reasonId}
    >
      {!verdict.allowed && (
        <Text size="sm" c="dimmed" id={reasonId} mb="sm">
          {verdict.reason}
        </Text>
      )}
      {children}
    </Fieldset>
  );
}
