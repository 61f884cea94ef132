import { Button, Group, Textarea, type TextareaProps, TextInput, type TextInputProps } from "@mantine/core";

/** The name of what a form makes: required unless said otherwise. */
export function NameField({ required = true, ...props }: TextInputProps) {
  return <TextInput label="Name" required={required} {...props} />;
}

/** A free-text description, growing with what is typed. */
export function DescriptionField(props: TextareaProps) {
  return <Textarea label="Description" autosize minRows={2} {...props} />;
}

/** A form's closing buttons: Cancel, and the submit button named for what it does. */
export function FormActions({
  submitLabel,
  saving,
  onCancel,
  disabled,
}: {
  submitLabel: string;
  saving: boolean;
  onCancel?: (() => void) | undefined;
  disabled?: boolean | undefined;
}) {
  return (
    <Group justify="flex-end">
      {onCancel && (
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
      )}
      <Button type="submit" loading={saving} disabled={disabled}>
        {submitLabel}
      </Button>
    </Group>
  );
}
