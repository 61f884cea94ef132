import { Group, Table, VisuallyHidden } from "@mantine/core";
import type { ReactNode } from "react";
import type { Verdict } from "../auth/session";
import { ConfirmButton } from "./confirm-button";
import { GuardedButton } from "./guarded-button";

/** The header of a table's last column, named for screen readers only. */
export function ActionsHeader() {
  return (
    <Table.Th>
      <VisuallyHidden>Actions</VisuallyHidden>
    </Table.Th>
  );
}

/** A row's buttons, at the end of its last cell. */
export function RowActions({ children }: { children: ReactNode }) {
  return (
    <Group gap="xs" justify="flex-end" wrap="nowrap">
      {children}
    </Group>
  );
}

/** "Edit", named after the row's `name` so that each row's button can be told apart. */
export function EditButton({
  name,
  verdict,
  onClick,
}: {
  name: string;
  verdict: Verdict;
  onClick: () => void;
}) {
  return (
    <GuardedButton
      verdict={verdict}
      variant="subtle"
      size="compact-sm"
      aria-label={`Edit ${name}`}
      onClick={onClick}
    >
      Edit
    </GuardedButton>
  );
}

/**
 * "Delete", named after the row's `name`, which asks first: "Delete `what` `name`?" unless a
 * `title` says otherwise, confirmed by "Delete `what`".
 */
export function DeleteButton({
  name,
  what,
  title,
  verdict,
  message,
  onConfirm,
}: {
  name: string;
  what: string;
  title?: string;
  verdict: Verdict;
  message: ReactNode;
  onConfirm: () => Promise<unknown>;
}) {
  return (
    <ConfirmButton
      verdict={verdict}
      aria-label={`Delete ${name}`}
      title={title ?? `Delete ${what} ${name}?`}
      message={message}
      confirmLabel={`Delete ${what}`}
      onConfirm={onConfirm}
    >
      Delete
    </ConfirmButton>
  );
}
