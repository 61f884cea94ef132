import { useEffect, useState } from "react";

/** The time now, renewed every `everyMs` while the component is shown: for what counts down. */
export function useNow(everyMs = 1_000): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * How long until `due`, in the two largest units that matter and whole seconds: "1 h 5 min",
 * "3 min 20 s", "45 s"; "now" once it is due (the service hands over within a few seconds).
 */
export function timeLeft(due: Date, now: Date): string {
  const seconds = Math.ceil((due.getTime() - now.getTime()) / 1000);
  if (seconds <= 0) return "now";
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  if (minutes > 0) return rest > 0 ? `${minutes} min ${rest} s` : `${minutes} min`;
  return `${rest} s`;
}

/** "Next milestone in 3 min 20 s", or that it is starting, for the active milestone. */
export function countdown(due: Date, now: Date): string {
  const left = timeLeft(due, now);
  return left === "now" ? "Next milestone starting now" : `Next milestone in ${left}`;
}

/** A transition condition's wait, as a person says it: "30 minutes", "1 hour", "1 day 2 hours". */
export function minutesText(minutes: number): string {
  const unit = (count: number, one: string) => `${count} ${one}${count === 1 ? "" : "s"}`;
  if (minutes < 60) return unit(minutes, "minute");
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  return [days && unit(days, "day"), hours && unit(hours, "hour"), rest && unit(rest, "minute")]
    .filter(Boolean)
    .join(" ");
}
