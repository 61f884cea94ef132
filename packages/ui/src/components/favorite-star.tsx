import { ActionIcon } from "@mantine/core";
import { IconStar, IconStarFilled } from "@tabler/icons-react";

/** A toggle marking something as the person's favourite; `name` is what it marks. */
export function FavoriteStar({
  name,
  favorite,
  onChange,
  size = "md",
}: {
  name: string;
  favorite: boolean;
  onChange: (favorite: boolean) => void;
  size?: "sm" | "md" | "lg";
}) {
  return (
    <ActionIcon
      variant="subtle"
      color={favorite ? "yellow" : "gray"}
      size={size}
      aria-label={`Favourite ${name}`}
      aria-pressed={favorite}
      onClick={() => onChange(!favorite)}
    >
      {favorite ? <IconStarFilled size="1.1em" /> : <IconStar size="1.1em" />}
    </ActionIcon>
  );
}
