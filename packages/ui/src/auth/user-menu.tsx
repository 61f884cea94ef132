import { Avatar, Menu, UnstyledButton } from "@mantine/core";
import { Link } from "react-router";
import type { Me } from "./session";

/** The person's own menu: their profile and tokens, and logging out (a form post to /logout). */
export function UserMenu({ user }: { user: NonNullable<Me>["user"] }) {
  const name = user.name || user.username || user.email || "You";
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <UnstyledButton aria-label={`Account of ${name}`}>
          <Avatar radius="xl" color="blue">
            {name.slice(0, 2).toUpperCase()}
          </Avatar>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{name}</Menu.Label>
        <Menu.Item component={Link} to="/profile">
          Profile and tokens
        </Menu.Item>
        <form method="post" action="/logout">
          <Menu.Item component="button" type="submit">
            Log out
          </Menu.Item>
        </form>
      </Menu.Dropdown>
    </Menu>
  );
}
