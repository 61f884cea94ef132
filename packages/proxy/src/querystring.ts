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

/**
 * Parses a query string the way the reference proxy's parser reads an evaluation context:
 * `properties[name]=value` (brackets encoded or not) nests under `properties`; anything
 * else is a flat string. A name given twice keeps its first value. Objects have no
 * prototype, so `__proto__` is just a name.
 */
export function parseQuery(query: string): Query {
  const result: Query = Object.create(null);
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
        properties = Object.create(null) as Record<string, string>;
        result.properties = properties;
      }
      const name = key.slice("properties[".length, -1);
      if (!(name in properties)) properties[name] = value;
    } else if (!(key in result)) {
      result[key] = value;
    }
  }
  return result;
}
