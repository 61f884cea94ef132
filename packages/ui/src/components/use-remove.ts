import { type QueryKey, useQueryClient } from "@tanstack/react-query";
import { notifyDone } from "./notify";

/**
 * A row's deletion for a ConfirmButton: `call`, then the listing under `queryKey` is read again
 * before `done(item)` is notified, so the row is gone when the person reads that it is.
 */
export function useRemove<T>(
  queryKey: QueryKey,
  call: (item: T) => Promise<unknown>,
  done: (item: T) => string,
) {
  const client = useQueryClient();
  return async (item: T) => {
    await call(item);
    await client.invalidateQueries({ queryKey });
    notifyDone(done(item));
  };
}
