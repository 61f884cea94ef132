import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";
import "@mantine/spotlight/styles.css";
import { createTheme, MantineProvider, Modal } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import { MutationCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { RouterProvider } from "react-router";
import { ApiError } from "./api/client";
import { router } from "./app/routes";
import { notifyFailure } from "./components/notify";
import { queryKeys } from "./query-keys";

const theme = createTheme({
  primaryColor: "blue",
  defaultRadius: "md",
  // Mantine leaves a modal's × without a name; a screen reader would say only "button".
  components: { Modal: Modal.extend({ defaultProps: { closeButtonProps: { "aria-label": "Close" } } }) },
});

const queries: QueryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal will not turn into a success by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
  // A write that fails says why, in the service's words, wherever it was made; a lost
  // session sends the person back to the login page.
  mutationCache: new MutationCache({
    onError: (error, _variables, _context, mutation) => {
      if (mutation.meta?.quiet) return;
      if (error instanceof ApiError && error.status === 401)
        void queries.invalidateQueries({ queryKey: queryKeys.session.me() });
      else notifyFailure(error);
    },
  }),
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <Notifications position="top-right" />
      <QueryClientProvider client={queries}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
