import GUIDES from "virtual:guides";
import { Button, Menu } from "@mantine/core";
import { IconApi, IconBook, IconHelp } from "@tabler/icons-react";
import { Link } from "react-router";

/** The header's way to the API reference (/docs, the service's own page) and to the guides. */
export function HelpMenu() {
  return (
    <Menu position="bottom-end" width={300}>
      <Menu.Target>
        <Button variant="subtle" color="gray" leftSection={<IconHelp size={18} aria-hidden />}>
          Help
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item
          component="a"
          href="/docs/"
          target="_blank"
          rel="noreferrer"
          leftSection={<IconApi size={16} aria-hidden />}
        >
          API reference
        </Menu.Item>
        {GUIDES.length > 0 && <Menu.Label>Guides</Menu.Label>}
        {GUIDES.map((guide) => (
          <Menu.Item
            key={guide.name}
            component={Link}
            to={`/guides/${guide.name}`}
            leftSection={<IconBook size={16} aria-hidden />}
          >
            {guide.title}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
