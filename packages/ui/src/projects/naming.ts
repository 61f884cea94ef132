/**
 * Whether the whole of `text` matches a project's naming pattern, as the service checks it
 * (`^(?:pattern)$`); undefined when JavaScript cannot read the pattern. The service reads
 * patterns as RE2, which takes a few forms JavaScript does not, so it has the last word.
 */
export function matchesPattern(pattern: string, text: string): boolean | undefined {
  try {
    return new RegExp(`^(?:${pattern})$`).test(text);
  } catch {
    return undefined;
  }
}
