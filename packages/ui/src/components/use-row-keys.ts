import { useRef } from "react";

/**
 * Stable React keys for the rows of a list that has no ids of its own: a row keeps its key
 * (and so its focus and local state) when a row before it is removed or renamed.
 * Call `forget(index)` just before removing that row.
 */
export function useRowKeys(count: number) {
  const rows = useRef({ next: 0, keys: [] as number[] }).current;
  while (rows.keys.length < count) rows.keys.push(rows.next++);
  rows.keys.length = count;
  return { keys: rows.keys, forget: (index: number) => void rows.keys.splice(index, 1) };
}
