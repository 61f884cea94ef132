// The table types of src/db/schema.ts as data, for comparing with a migrated database. Types
// are gone at run time, so this reads the file's text: a strict parser of the forms it uses
// (interfaces, type aliases, unions, arrays, generics, string literals and object literal
// types) that fails on anything else rather than guess.

/** A type as written: a name with its arguments, an array, a union, a literal, or `{ … }`. */
export type TypeNode =
  | { kind: "name"; name: string; args: TypeNode[] }
  | { kind: "array"; of: TypeNode }
  | { kind: "union"; members: TypeNode[] }
  | { kind: "literal"; value: string }
  | { kind: "object" };

/** How a column is read, and what an insert may leave out. */
export interface DeclaredColumn {
  /** What a row holds: a primitive, a PostgreSQL array of one, or JSON. */
  kind: "string" | "number" | "boolean" | "Date" | "json" | "string[]" | "number[]";
  nullable: boolean;
  /** An insert may leave it out (Generated, or an insert type with undefined or never). */
  optional: boolean;
  /** No insert may write it (`never`): a column the database computes. */
  readOnly: boolean;
}

export type DeclaredTables = Map<string, Map<string, DeclaredColumn>>;

const TOKEN = /\s+|\/\*[\s\S]*?\*\/|\/\/[^\n]*|"[^"]*"|[A-Za-z_$][\w$]*|[{}<>()[\],;:|?=]|./y;

function tokenize(source: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(source); match; match = TOKEN.exec(source)) {
    const token = match[0];
    if (/^(\s|\/\*|\/\/)/.test(token)) continue;
    if (!/^("|[A-Za-z_$]|[{}<>()[\],;:|?=]$)/.test(token))
      throw new Error(`schema.ts: unexpected "${token}"`);
    tokens.push(token);
  }
  return tokens;
}

interface Alias {
  params: string[];
  body: TypeNode;
}

interface Declarations {
  aliases: Map<string, Alias>;
  interfaces: Map<string, Map<string, TypeNode>>;
}

function parse(source: string): Declarations {
  const tokens = tokenize(source);
  let at = 0;
  const peek = () => tokens[at];
  const next = () => {
    const token = tokens[at++];
    if (token === undefined) throw new Error("schema.ts: unexpected end");
    return token;
  };
  const expect = (token: string) => {
    const found = next();
    if (found !== token) throw new Error(`schema.ts: expected "${token}", found "${found}" (token ${at})`);
  };
  const name = () => {
    const token = next();
    if (!/^[A-Za-z_$]/.test(token)) throw new Error(`schema.ts: expected a name, found "${token}"`);
    return token;
  };

  function primary(): TypeNode {
    let node: TypeNode;
    if (peek() === "{") {
      // An object literal type is JSON's business: only its extent matters here.
      let depth = 0;
      do {
        const token = next();
        if (token === "{") depth++;
        if (token === "}") depth--;
      } while (depth > 0);
      node = { kind: "object" };
    } else if (peek()?.startsWith('"')) {
      node = { kind: "literal", value: next().slice(1, -1) };
    } else {
      const id = name();
      const args: TypeNode[] = [];
      if (peek() === "<") {
        next();
        args.push(union());
        while (peek() === ",") {
          next();
          args.push(union());
        }
        expect(">");
      }
      node = { kind: "name", name: id, args };
    }
    while (peek() === "[") {
      next();
      expect("]");
      node = { kind: "array", of: node };
    }
    return node;
  }

  function union(): TypeNode {
    const members = [primary()];
    while (peek() === "|") {
      next();
      members.push(primary());
    }
    return members.length === 1 ? members[0]! : { kind: "union", members };
  }

  const declarations: Declarations = { aliases: new Map(), interfaces: new Map() };
  while (at < tokens.length) {
    if (peek() === "import") {
      while (next() !== ";");
      continue;
    }
    if (peek() === "export") next();
    const keyword = next();
    if (keyword === "type") {
      const id = name();
      const params: string[] = [];
      if (peek() === "<") {
        next();
        params.push(name());
        while (peek() === ",") {
          next();
          params.push(name());
        }
        expect(">");
      }
      expect("=");
      declarations.aliases.set(id, { params, body: union() });
      expect(";");
    } else if (keyword === "interface") {
      const id = name();
      const members = new Map<string, TypeNode>();
      expect("{");
      while (peek() !== "}") {
        const member = name();
        if (peek() === "?") next();
        expect(":");
        members.set(member, union());
        expect(";");
      }
      expect("}");
      declarations.interfaces.set(id, members);
    } else {
      throw new Error(`schema.ts: expected a type or an interface, found "${keyword}"`);
    }
  }
  return declarations;
}

const substitute = (node: TypeNode, values: Map<string, TypeNode>): TypeNode => {
  switch (node.kind) {
    case "name":
      return node.args.length === 0 && values.has(node.name)
        ? values.get(node.name)!
        : { ...node, args: node.args.map((arg) => substitute(arg, values)) };
    case "array":
      return { kind: "array", of: substitute(node.of, values) };
    case "union":
      return { kind: "union", members: node.members.map((member) => substitute(member, values)) };
    default:
      return node;
  }
};

const members = (node: TypeNode): TypeNode[] => (node.kind === "union" ? node.members : [node]);
const isName = (node: TypeNode, name: string) => node.kind === "name" && node.name === name;

interface Sides {
  select: TypeNode[];
  insert: TypeNode[];
}

/** A column's type as Kysely reads it: what a select returns and what an insert takes. */
function sides(node: TypeNode, aliases: Map<string, Alias>): Sides {
  const result: Sides = { select: [], insert: [] };
  for (const member of members(node)) {
    const alias = member.kind === "name" ? aliases.get(member.name) : undefined;
    if (member.kind === "name" && alias) {
      if (alias.params.length !== member.args.length)
        throw new Error(`schema.ts: ${member.name} takes ${alias.params.length} arguments`);
      const values = new Map(alias.params.map((param, index) => [param, member.args[index]!]));
      const expanded = sides(substitute(alias.body, values), aliases);
      result.select.push(...expanded.select);
      result.insert.push(...expanded.insert);
    } else if (member.kind === "name" && member.name === "ColumnType") {
      const [select, insert = select] = member.args;
      if (!select || !insert || member.args.length > 3) {
        throw new Error("schema.ts: ColumnType takes one to three arguments");
      }
      result.select.push(...members(select));
      result.insert.push(...members(insert));
    } else if (member.kind === "name" && member.name === "Generated") {
      const [select] = member.args;
      if (!select || member.args.length !== 1) throw new Error("schema.ts: Generated takes one argument");
      result.select.push(...members(select));
      result.insert.push(...members(select), { kind: "name", name: "undefined", args: [] });
    } else {
      result.select.push(member);
      result.insert.push(member);
    }
  }
  return result;
}

const PRIMITIVES = new Set(["string", "number", "boolean", "Date"]);
const isNothing = (node: TypeNode) => isName(node, "undefined") || isName(node, "never");

/** The primitive each member of a type is, arrays of them, or "object" for what only JSON holds. */
function valueKinds(node: TypeNode, aliases: Map<string, Alias>, where: string): string[] {
  if (node.kind === "union") return node.members.flatMap((member) => valueKinds(member, aliases, where));
  if (node.kind === "literal") return ["string"];
  if (node.kind === "array") return valueKinds(node.of, aliases, where).map((kind) => `${kind}[]`);
  if (node.kind === "object") return ["object"];
  if (isNothing(node)) throw new Error(`${where}: a select cannot return ${node.name}`);
  if (PRIMITIVES.has(node.name)) return [node.name];
  const alias = aliases.get(node.name);
  if (!alias) return ["object"];
  const values = new Map(alias.params.map((param, index) => [param, node.args[index]!]));
  return valueKinds(substitute(alias.body, values), aliases, where);
}

const SCALARS = ["string", "number", "boolean", "Date"];
const ARRAYS = ["string[]", "number[]"];

function declaredColumn(node: TypeNode, aliases: Map<string, Alias>, where: string): DeclaredColumn {
  const { select, insert } = sides(node, aliases);
  const values = select.filter((member) => !isName(member, "null"));
  const kinds = [...new Set(values.flatMap((member) => valueKinds(member, aliases, where)))];
  const written = insert.filter((member) => !isName(member, "null") && !isNothing(member));
  // JSON columns are written as JSON text: pg would turn a JavaScript array into a PostgreSQL one.
  const asJsonText = written.length > 0 && written.every((member) => isName(member, "string"));
  const [only] = kinds;
  let kind: DeclaredColumn["kind"];
  if (kinds.length === 1 && SCALARS.includes(only!)) kind = only as DeclaredColumn["kind"];
  else if (asJsonText && kinds.every((each) => each === "object" || each.endsWith("[]"))) kind = "json";
  else if (kinds.length === 1 && ARRAYS.includes(only!)) kind = only as DeclaredColumn["kind"];
  else throw new Error(`${where}: reads as ${kinds.join(" | ")}, which is no column type this check knows`);
  return {
    kind,
    nullable: values.length < select.length,
    optional: insert.some(isNothing),
    readOnly: insert.every((member) => isName(member, "never")),
  };
}

/** Every table of schema.ts's `Database` interface, with its columns. */
export function declaredTables(source: string): DeclaredTables {
  const { aliases, interfaces } = parse(source);
  const database = interfaces.get("Database");
  if (!database) throw new Error("schema.ts: no Database interface");
  const tables: DeclaredTables = new Map();
  for (const [table, type] of database) {
    if (type.kind !== "name" || type.args.length > 0 || !interfaces.has(type.name)) {
      throw new Error(`schema.ts: Database.${table} must name an interface of the file`);
    }
    const columns = new Map<string, DeclaredColumn>();
    for (const [column, node] of interfaces.get(type.name)!) {
      columns.set(column, declaredColumn(node, aliases, `schema.ts: ${type.name}.${column}`));
    }
    tables.set(table, columns);
  }
  return tables;
}
