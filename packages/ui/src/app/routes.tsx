import { createBrowserRouter, type RouteObject, redirect } from "react-router";
import { LoginPage } from "../auth/login-page";
import { SignedOutPage } from "../auth/signed-out-page";
import { Loading } from "../components/loading";
import { Shell } from "./shell";

// Each screen is its own chunk, loaded when first opened: the login page and the shell are
// all a first visit downloads.
const page = (load: () => Promise<{ default: React.ComponentType }>): Pick<RouteObject, "lazy"> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

export const router = createBrowserRouter([
  { path: "/login", element: <LoginPage /> },
  { path: "/signed-out", element: <SignedOutPage /> },
  {
    element: <Shell />,
    HydrateFallback: () => <Loading fill />,
    children: [
      // Redirected before anything renders: an element would show an empty page while the next loads.
      { index: true, loader: () => redirect("/projects") },
      { path: "projects", ...page(() => import("../projects/projects-page")) },
      { path: "projects/:projectId", ...page(() => import("../projects/project-page")) },
      { path: "projects/:projectId/:tab", ...page(() => import("../projects/project-page")) },
      { path: "projects/:projectId/features/:featureName", ...page(() => import("../flags/flag-page")) },
      {
        path: "projects/:projectId/change-requests/:id",
        ...page(() => import("../change-requests/change-request-page")),
      },
      { path: "change-requests", ...page(() => import("../change-requests/reviews-page")) },
      { path: "playground", ...page(() => import("../playground/playground-page")) },
      { path: "segments", ...page(() => import("../segments/segments-page")) },
      { path: "context-fields", ...page(() => import("../context-fields/context-fields-page")) },
      { path: "environments", ...page(() => import("../environments/environments-page")) },
      { path: "tag-types", ...page(() => import("../tag-types/tag-types-page")) },
      { path: "strategy-types", ...page(() => import("../strategy-types/strategy-types-page")) },
      { path: "release-templates", ...page(() => import("../release-plans/templates/templates-page")) },
      {
        path: "release-templates/:templateId",
        ...page(() => import("../release-plans/templates/template-page")),
      },
      { path: "api-tokens", ...page(() => import("../tokens/api-tokens-page")) },
      { path: "integrations", ...page(() => import("../integrations/integrations-page")) },
      { path: "applications", ...page(() => import("../applications/applications-page")) },
      { path: "applications/:appName", ...page(() => import("../applications/application-page")) },
      { path: "events", ...page(() => import("../events/events-page")) },
      { path: "admin/users", ...page(() => import("../people/users-page")) },
      { path: "admin/roles", ...page(() => import("../people/roles-page")) },
      { path: "admin/groups", ...page(() => import("../people/groups-page")) },
      { path: "admin/single-sign-on", ...page(() => import("../people/sso-page")) },
      { path: "profile", ...page(() => import("../people/profile-page")) },
      { path: "guides/:name", ...page(() => import("../guides/guide-page")) },
      { path: "*", ...page(() => import("./not-found-page")) },
    ],
  },
]);
