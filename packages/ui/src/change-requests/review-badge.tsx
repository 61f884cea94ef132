import { Badge } from "@mantine/core";
import { useAwaitingMyReview } from "./queries";

/** How many change requests wait for the person's review, next to the navigation's link to them. */
export function ReviewBadge() {
  const awaiting = useAwaitingMyReview();
  const count = awaiting.data?.total ?? 0;
  if (count === 0) return null;
  return (
    <Badge size="sm" circle color="red" aria-label={`${count} awaiting your review`}>
      {count}
    </Badge>
  );
}
