import { Group, NativeSelect, Textarea } from "@mantine/core";
import { useState } from "react";
import { payloadProblem } from "./problems";
import { PAYLOAD_TYPES, type Payload, type PayloadType } from "./variant";

const TYPE_LABELS: Record<PayloadType, string> = {
  string: "String",
  json: "JSON",
  number: "Number",
  csv: "CSV",
};

const PLACEHOLDERS: Record<PayloadType, string> = {
  string: "Text handed to your code with this variant",
  json: '{ "color": "blue" }',
  number: "42",
  csv: "red,green,blue",
};

const monospace = { input: { fontFamily: "var(--mantine-font-family-monospace)" } };

/**
 * A variant's payload. An empty value means no payload, so the type chosen before anything
 * is typed is kept here rather than in the variant.
 */
export function PayloadEditor({
  payload,
  onChange,
}: {
  payload: Payload | undefined;
  onChange: (next: Payload | undefined) => void;
}) {
  const [chosen, setChosen] = useState<PayloadType>(payload?.type ?? "string");
  const type = payload?.type ?? chosen;
  const value = payload?.value ?? "";
  const set = (nextType: PayloadType, nextValue: string) =>
    onChange(nextValue === "" ? undefined : { type: nextType, value: nextValue });

  return (
    <Group align="flex-start" wrap="nowrap">
      <NativeSelect
        label="Payload type"
        w={140}
        data={PAYLOAD_TYPES.map((option) => ({ value: option, label: TYPE_LABELS[option] }))}
        value={type}
        onChange={(event) => {
          const next = PAYLOAD_TYPES.find((option) => option === event.currentTarget.value) ?? "string";
          setChosen(next);
          set(next, value);
        }}
      />
      <Textarea
        label="Payload"
        description={type === "json" ? "Optional; checked as you type." : "Optional."}
        placeholder={PLACEHOLDERS[type]}
        flex={1}
        autosize
        minRows={type === "json" ? 3 : 1}
        maxRows={14}
        spellCheck={false}
        styles={type === "json" || type === "csv" ? monospace : undefined}
        value={value}
        error={payloadProblem(payload)}
        onChange={(event) => set(type, event.currentTarget.value)}
      />
    </Group>
  );
}
