import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import { queryKeys } from "../query-keys";

const fetchContextFields = () => unwrap(api.GET("/api/admin/context"));

export type ContextField = Awaited<ReturnType<typeof fetchContextFields>>[number];

export const useContextFields = () =>
  useQuery({ queryKey: queryKeys.contextFields.list(), queryFn: fetchContextFields });

/** Stickiness every SDK knows; context fields marked for stickiness come after. */
const BUILT_IN_STICKINESS = ["default", "userId", "sessionId", "random"];

/** What a variant list may be sticky on, keeping the current choice even if its field is gone. */
export function stickinessOptions(fields: readonly ContextField[], current: string): string[] {
  const options = [
    ...BUILT_IN_STICKINESS,
    ...fields
      .filter((field) => field.stickiness && !BUILT_IN_STICKINESS.includes(field.name))
      .map((f) => f.name),
  ];
  return options.includes(current) ? options : [...options, current];
}
