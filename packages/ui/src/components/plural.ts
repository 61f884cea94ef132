const number = new Intl.NumberFormat();

/**
 * A count with its noun, the noun singular for exactly one: "1 flag", "0 flags", "2 strategies"
 * (`many` where adding an s is not the plural).
 */
export const plural = (count: number, one: string, many = `${one}s`): string =>
  `${number.format(count)} ${count === 1 ? one : many}`;
