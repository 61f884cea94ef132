import { Alert, Button, Group, Modal, Stack, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useMutation } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { Verdict } from "../auth/session";
import { GuardedButton } from "./guarded-button";
import { describeFailure } from "./notify";

/**
 * A row's button for a change that cannot be undone: it asks first, in a modal titled `title`,
 * and a refusal (a segment still in use, the last environment) is shown in that modal,
 * where the person is looking.
 */
export function ConfirmButton({
  verdict,
  children,
  title,
  message,
  confirmLabel,
  onConfirm,
  "aria-label": ariaLabel,
}: {
  verdict: Verdict;
  children: ReactNode;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  "aria-label"?: string;
}) {
  const [opened, { open, close }] = useDisclosure();
  const action = useMutation({ mutationFn: onConfirm, meta: { quiet: true }, onSuccess: close });
  const dismiss = () => {
    action.reset();
    close();
  };
  return (
    <>
      <GuardedButton
        verdict={verdict}
        color="red"
        variant="subtle"
        size="compact-sm"
        aria-label={ariaLabel}
        onClick={open}
      >
        {children}
      </GuardedButton>
      <Modal opened={opened} onClose={dismiss} title={title}>
        <Stack>
          <Text>{message}</Text>
          {action.isError && (
            <Alert color="red" role="alert" title="Not done">
              {describeFailure(action.error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={dismiss}>
              Cancel
            </Button>
            <Button color="red" loading={action.isPending} onClick={() => action.mutate()}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
