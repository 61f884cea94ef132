import { Anchor, Stack, Text, Title } from "@mantine/core";
import { Link } from "react-router";

export default function NotFoundPage() {
  return (
    <Stack>
      <Title order={2}>Nothing here</Title>
      <Text>This address names no screen of Signalbox.</Text>
      <Anchor component={Link} to="/projects">
        Go to projects
      </Anchor>
    </Stack>
  );
}
