import { ActionIcon, type ActionIconProps, Button, Group, Stack, Text } from "@mantine/core";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import { Fragment, type ReactNode } from "react";
import { useRowKeys } from "./use-row-keys";

/** What a row is drawn with: its item and place, and how to change or remove it. */
export interface EditableRow<T> {
  item: T;
  index: number;
  change: (next: T) => void;
  remove: () => void;
}

/**
 * A list of rows the person adds, edits and removes in place (legal values, parameters,
 * constraints, variants, overrides…), handed on whole at every change. Rows keep their React
 * key, so their focus and local state, when a row before them is removed.
 */
export function EditableList<T>({
  value,
  onChange,
  newItem,
  addLabel,
  empty,
  footer,
  size = "sm",
  gap = "sm",
  children,
}: {
  value: readonly T[];
  onChange: (next: T[]) => void;
  /** The row "Add" appends. */
  newItem: () => T;
  addLabel: string;
  /** Said in place of the rows while there are none. */
  empty?: ReactNode;
  /** Beside the add button, such as a total. */
  footer?: ReactNode;
  size?: "xs" | "sm";
  gap?: "xs" | "sm" | "md";
  children: (row: EditableRow<T>) => ReactNode;
}) {
  const { keys, forget } = useRowKeys(value.length);
  return (
    <Stack gap={gap}>
      {value.length === 0 && empty && (
        <Text size="sm" c="dimmed">
          {empty}
        </Text>
      )}
      {value.map((item, index) => (
        <Fragment key={keys[index]}>
          {children({
            item,
            index,
            change: (next) => onChange(value.map((old, at) => (at === index ? next : old))),
            remove: () => {
              forget(index);
              onChange(value.filter((_, at) => at !== index));
            },
          })}
        </Fragment>
      ))}
      <Group justify="space-between">
        <Button
          variant="light"
          size={size === "xs" ? "compact-sm" : "sm"}
          leftSection={<IconPlus size={size === "xs" ? 14 : 16} />}
          onClick={() => onChange([...value, newItem()])}
        >
          {addLabel}
        </Button>
        {footer}
      </Group>
    </Stack>
  );
}

/** A row's remove button: a red bin named `label`, which its tooltip says too. */
export function RemoveRowButton({
  label,
  onClick,
  ...props
}: { label: string; onClick: () => void } & ActionIconProps) {
  return (
    <ActionIcon
      variant="subtle"
      color="red"
      size="lg"
      aria-label={label}
      title={label}
      onClick={onClick}
      {...props}
    >
      <IconTrash size={18} />
    </ActionIcon>
  );
}
