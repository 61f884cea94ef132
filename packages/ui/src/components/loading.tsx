import { Center, Loader } from "@mantine/core";

/**
 * Where something will appear once it has loaded: a spinner rather than a blank area, named
 * for screen readers (a status, so its label is announced).
 */
export function Loading({ label = "Loading", fill = false }: { label?: string; fill?: boolean }) {
  return (
    <Center py="xl" h={fill ? "100vh" : undefined}>
      <Loader role="status" aria-label={label} />
    </Center>
  );
}
