/**
 * The screens a person can go to from the navigation and the command palette, in the order
 * they are listed. `permission` hides a screen from those who could not use any of it.
 */
export interface Screen {
  path: string;
  label: string;
  section: "Flags" | "Configure" | "Observe" | "Admin" | "You";
  permission?: string;
}

export const SCREENS: readonly Screen[] = [
  { path: "/projects", label: "Projects", section: "Flags" },
  { path: "/change-requests", label: "Change requests", section: "Flags" },
  { path: "/playground", label: "Playground", section: "Flags" },
  { path: "/segments", label: "Segments", section: "Configure" },
  { path: "/context-fields", label: "Context fields", section: "Configure" },
  { path: "/environments", label: "Environments", section: "Configure" },
  { path: "/tag-types", label: "Tag types", section: "Configure" },
  { path: "/strategy-types", label: "Strategy types", section: "Configure" },
  { path: "/release-templates", label: "Release templates", section: "Configure" },
  { path: "/api-tokens", label: "API tokens", section: "Configure" },
  { path: "/integrations", label: "Integrations", section: "Configure" },
  { path: "/applications", label: "Applications", section: "Observe" },
  { path: "/events", label: "Event log", section: "Observe" },
  { path: "/admin/users", label: "Users", section: "Admin", permission: "ADMIN" },
  { path: "/admin/roles", label: "Roles", section: "Admin", permission: "ADMIN" },
  { path: "/admin/groups", label: "Groups", section: "Admin", permission: "ADMIN" },
  { path: "/admin/single-sign-on", label: "Single sign-on", section: "Admin", permission: "ADMIN" },
  { path: "/profile", label: "Profile and tokens", section: "You" },
];
