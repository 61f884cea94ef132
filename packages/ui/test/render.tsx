import { MantineProvider } from "@mantine/core";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactElement } from "react";

/**
 * Renders a component as the app does: with Mantine's theme and a fresh query cache.
 * Mantine's test mode renders dropdowns, tooltips and modals in place and without
 * transitions, so what opens can be found at once (jsdom never ends a transition).
 */
export function renderWithProviders(element: ReactElement) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <MantineProvider env="test">
      <QueryClientProvider client={client}>{element}</QueryClientProvider>
    </MantineProvider>,
  );
}
