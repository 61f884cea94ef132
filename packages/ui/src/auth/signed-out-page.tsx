import { Anchor, Center, Paper, Stack, Text, Title } from "@mantine/core";
import { Link } from "react-router";

/** Where the service's /logout sends the browser. */
export function SignedOutPage() {
  return (
    <Center mih="100vh">
      <Paper withBorder p="xl" component="main">
        <Stack>
          <Title order={2}>You have logged out</Title>
          <Text>Your session has ended on this browser.</Text>
          <Anchor component={Link} to="/login">
            Log in again
          </Anchor>
        </Stack>
      </Paper>
    </Center>
  );
}
