import { Anchor, AppShell, Burger, Group, Loader, NavLink, ScrollArea, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { Suspense } from "react";
import { Link, Navigate, Outlet, useLocation, useNavigation } from "react-router";
import { useCan, useMe } from "../auth/session";
import { UserMenu } from "../auth/user-menu";
import { ReviewBadge } from "../change-requests/review-badge";
import { ErrorPanel } from "../components/error-panel";
import { Loading } from "../components/loading";
import { CommandPalette } from "./command-palette";
import { HelpMenu } from "./help-menu";
import { SCREENS, type Screen } from "./screens";

const SECTIONS = ["Flags", "Configure", "Observe", "Admin", "You"] as const;

/** The frame around every screen of a logged-in person: navigation, search and their menu. */
export function Shell() {
  const me = useMe();
  const location = useLocation();
  const navigation = useNavigation();
  const can = useCan();
  const [opened, { toggle, close }] = useDisclosure();

  if (me.isPending) return <Loading fill />;
  if (me.isError) return <ErrorPanel error={me.error} />;
  if (me.data === null) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/login?next=${encodeURIComponent(next)}`} replace />;
  }

  const visible = (screen: Screen) => !screen.permission || can(screen.permission).allowed;
  return (
    <AppShell
      padding="md"
      header={{ height: 56 }}
      navbar={{ width: 230, breakpoint: "sm", collapsed: { mobile: !opened } }}
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Navigation" />
            <Anchor component={Link} to="/projects" c="inherit" underline="never">
              <Title order={3}>Signalbox</Title>
            </Anchor>
          </Group>
          <Group>
            <CommandPalette />
            <HelpMenu />
            <UserMenu user={me.data.user} />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main">
        {/* Compact enough for every link to show in a window 768 pixels high; in a shorter one
            they scroll, with the scrollbar in sight rather than only on hover. */}
        <AppShell.Section grow component={ScrollArea} type="auto">
          {SECTIONS.map((section) => {
            const screens = SCREENS.filter((screen) => screen.section === section && visible(screen));
            if (screens.length === 0) return null;
            return (
              <div key={section}>
                <Text size="xs" c="dimmed" fw={700} tt="uppercase" mt={6} mb={2} px="sm">
                  {section}
                </Text>
                {screens.map((screen) => (
                  <NavLink
                    key={screen.path}
                    component={Link}
                    to={screen.path}
                    label={screen.label}
                    py={3}
                    rightSection={screen.path === "/change-requests" ? <ReviewBadge /> : undefined}
                    onClick={close}
                    active={
                      location.pathname === screen.path || location.pathname.startsWith(`${screen.path}/`)
                    }
                  />
                ))}
              </div>
            );
          })}
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        {navigation.state === "loading" && (
          <Loader size="xs" pos="fixed" top={70} right={20} role="status" aria-label="Loading the page" />
        )}
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
