/**
 * `parse` remembering its last answer. One evaluation compares the same context value (its
 * currentTime, remoteAddress, version) in the constraints of many flags: it is parsed once.
 * What `parse` returns is shared, so it must not be changed by its callers.
 */
export function rememberingLast<T>(parse: (text: string) => T): (text: string) => T {
  let lastText: string | undefined;
  let last: T;
  return (text) => {
    if (text !== lastText) {
      last = parse(text);
      lastText = text;
    }
    return last;
  };
}
