import { Alert, Button, CopyButton, Group, Stack, TextInput } from "@mantine/core";

/**
 * A secret the service shows once, when it is made: read-only, with a copy button, and a
 * plain warning that closing this loses it for good.
 */
export function SecretOnce({
  label,
  value,
  copyLabel = "Copy secret",
  warning = "You will not see it again: the service keeps only what it needs to recognise it.",
  onDone,
}: {
  label: string;
  value: string;
  copyLabel?: string;
  warning?: string;
  onDone: () => void;
}) {
  return (
    <Stack>
      <Alert color="yellow" title="Copy it now">
        {warning}
      </Alert>
      <TextInput
        label={label}
        value={value}
        readOnly
        onFocus={(event) => event.currentTarget.select()}
        styles={{ input: { fontFamily: "monospace" } }}
      />
      <Group justify="flex-end">
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button variant="light" color={copied ? "teal" : "blue"} onClick={copy}>
              {copied ? "Copied" : copyLabel}
            </Button>
          )}
        </CopyButton>
        <Button onClick={onDone}>Done</Button>
      </Group>
    </Stack>
  );
}
