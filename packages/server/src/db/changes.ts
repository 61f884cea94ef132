/** Whether an update sets anything: Kysely leaves out undefined values, and an empty SET is invalid SQL. */
export const setsAnything = (changes: object): boolean =>
  Object.values(changes).some((value) => value !== undefined);
