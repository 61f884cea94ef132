const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

// Made once: building an Intl formatter costs far more than formatting, and long lists (a
// project's flags as they scroll past) format two dates a row.
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const exactFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** "3 minutes ago", "in 2 days": the largest unit the distance from `now` fills at least once. */
export function relativeTime(value: Date, now = new Date()): string {
  const seconds = Math.round((value.getTime() - now.getTime()) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === "second")
      return relative.format(Math.trunc(seconds / size), unit);
  }
  return relative.format(0, "second");
}

/**
 * A moment the service reported, said as how long ago it was, with the exact time on hover
 * (its title, also its accessible description); `empty` when there is none.
 */
export function RelativeTime({
  value,
  empty = "Never",
}: {
  value: string | null | undefined;
  empty?: string;
}) {
  if (!value) return <>{empty}</>;
  const date = new Date(value);
  const exact = exactFormat.format(date);
  return (
    <time dateTime={value} title={exact}>
      {relativeTime(date)}
    </time>
  );
}
