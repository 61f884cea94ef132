import { useState } from "react";

/**
 * What a modal is open for (a row to edit, or "new"), kept while it closes so its title and
 * form do not blank out during the closing transition; `key` changes on every opening, so a
 * form keyed by it starts afresh.
 */
export function useModalTarget<T>() {
  const [state, setState] = useState<{ target: T | "new"; opened: boolean; key: number }>({
    target: "new",
    opened: false,
    key: 0,
  });
  return {
    ...state,
    open: (target: T | "new") => setState((current) => ({ target, opened: true, key: current.key + 1 })),
    close: () => setState((current) => ({ ...current, opened: false })),
  };
}
