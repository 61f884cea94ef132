import { Button, Card, Group, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { Verdict } from "../auth/session";
import { FormError, fieldError } from "../components/form-error";
import { GuardedButton } from "../components/guarded-button";
import { RelativeTime } from "../components/relative-time";
import { ActionsHeader, DeleteButton } from "../components/row-actions";
import { SecretOnce } from "../components/secret-once";

/** A token acting as its user: a person's own, or a service account's. */
export interface PersonalToken {
  id: number;
  description: string;
  createdAt: string;
  expiresAt: string;
  seenAt: string | null;
}

export interface NewPersonalToken {
  description: string;
  expiresAt: string;
}

const day = (date: Date) => date.toISOString().slice(0, 10);
const DAY = 86_400_000;

/**
 * Tokens that act as their user, listed with when they expire and were last used; a new one
 * is made here and its secret shown once, in place.
 */
export function PersonalTokens({
  title,
  tokens,
  verdict,
  create,
  remove,
}: {
  title: string;
  tokens: readonly PersonalToken[] | undefined;
  verdict: Verdict;
  create: (input: NewPersonalToken) => Promise<{ secret: string }>;
  remove: (token: PersonalToken) => Promise<unknown>;
}) {
  const [creating, setCreating] = useState(false);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>{title}</Title>
        <GuardedButton verdict={verdict} onClick={() => setCreating(true)} disabled={creating}>
          New token
        </GuardedButton>
      </Group>
      {creating && <NewTokenForm create={create} onDone={() => setCreating(false)} />}
      <Table striped aria-label={title} verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Description</Table.Th>
            <Table.Th>Expires</Table.Th>
            <Table.Th>Created</Table.Th>
            <Table.Th>Last seen</Table.Th>
            <ActionsHeader />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tokens?.map((token) => (
            <Table.Tr key={token.id}>
              <Table.Td fw={600}>{token.description}</Table.Td>
              <Table.Td>
                <RelativeTime value={token.expiresAt} />
                {new Date(token.expiresAt).getTime() < Date.now() && (
                  <Text span c="red" size="sm" ml="xs">
                    (expired)
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <RelativeTime value={token.createdAt} />
              </Table.Td>
              <Table.Td>
                <RelativeTime value={token.seenAt} />
              </Table.Td>
              <Table.Td ta="right">
                <DeleteButton
                  name={token.description}
                  what="token"
                  verdict={verdict}
                  message="Whatever uses it is refused from the moment it is deleted."
                  onConfirm={() => remove(token)}
                />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {tokens?.length === 0 && <Text c="dimmed">No tokens.</Text>}
    </Stack>
  );
}

function NewTokenForm({
  create,
  onDone,
}: {
  create: (input: NewPersonalToken) => Promise<{ secret: string }>;
  onDone: () => void;
}) {
  const [description, setDescription] = useState("");
  const [expires, setExpires] = useState(day(new Date(Date.now() + 30 * DAY)));
  const made = useMutation({
    meta: { quiet: true },
    // The token lasts through the whole day chosen, in the person's own time zone.
    mutationFn: () => create({ description, expiresAt: new Date(`${expires}T23:59:59`).toISOString() }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    made.mutate();
  };
  return (
    <Card withBorder>
      {made.data ? (
        <SecretOnce label="Secret" value={made.data.secret} onDone={onDone} />
      ) : (
        <form onSubmit={submit} aria-label="New token">
          <Stack>
            <TextInput
              label="Description"
              description="What it is for, such as the script that uses it."
              required
              value={description}
              onChange={(event) => setDescription(event.currentTarget.value)}
              error={fieldError(made.error, "description")}
            />
            <TextInput
              type="date"
              label="Expires"
              description="It stops working at the end of this day."
              required
              min={day(new Date(Date.now() + DAY))}
              value={expires}
              onChange={(event) => setExpires(event.currentTarget.value)}
              error={fieldError(made.error, "expiresAt")}
            />
            <FormError error={made.error} inline={["description", "expiresAt"]} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onDone}>
                Cancel
              </Button>
              <Button type="submit" loading={made.isPending}>
                Create token
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Card>
  );
}
