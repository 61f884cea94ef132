export type Query = Record<string, string | Record<string, string>>;

function decode(text: string): string {
  const plus = text.indexOf("+") !== -1;
  if (!plus && text.indexOf("%") === -1) return text;
  const spaced = plus ? text.replace(/\+/g, " ") : text;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

// The caller's names are own properties of plain objects, which V8 keeps in fast mode (objects
// without a prototype are dictionaries, slower to fill and to read): `__proto__` is defined
// rather than assigned, and names already present are found with hasOwn, never inherited.
function put(target: Record<string, unknown>, name: string, value: unknown): void {
  if (name === "__proto__") {
    Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[name] = value;
  }
}

/**
 * Parses a query string the way the reference proxy's parser reads an evaluation context:
 * `properties[name]=value` (brackets encoded or not) nests under `properties`; anything
 * else is a flat string. A name given twice keeps its first value. `__proto__` is just a name.
 */
export function parseQuery(query: string): Query {
  const result: Query = {};
  if (query === "") return result;
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const key = decode(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? "" : decode(pair.slice(equals + 1));
    if (key.startsWith("properties[") && key.endsWith("]")) {
      let properties = result.properties;
      if (typeof properties === "string") continue;
      if (properties === undefined) {
        properties = {};
        result.properties = properties;
      }
      const name = key.slice("properties[".length, -1);
      if (!Object.hasOwn(properties, name)) put(properties, name, value);
    } else if (!Object.hasOwn(result, key)) {
      put(result, key, value);
    }
  }
  return result;
}
