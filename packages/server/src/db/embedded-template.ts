import { createReadStream, existsSync, readFileSync } from "node:fs";
import { mkdir, open, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { createGunzip } from "node:zlib";

// PGlite creates a database by running initdb in a second WebAssembly instance next to its
// own: a first start peaked at about 700 MB, against about 210 MB for every later one. The
// build therefore makes an initialised, migrated, empty database once, and a first start
// lays it out in the empty data folder, after which PGlite resumes it as it would any other.

/** The build's output, next to the compiled code: from the sources (tests) there is none. */
const folder = fileURLToPath(new URL("../embedded-database/", import.meta.url));

/** The installed PGlite's version: its package exports no package.json, so it is found above the entry. */
function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  for (;;) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version: string };
      if (manifest.name === "@electric-sql/pglite") return manifest.version;
    }
    if (dirname(dir) === dir) throw new Error("the installed @electric-sql/pglite has no package.json");
    dir = dirname(dir);
  }
}

/**
 * Where the template for the installed PGlite is: a data folder is only readable by the
 * PostgreSQL it was made with, so a template made with another version is never used.
 */
export const templateFile = () => join(folder, `pglite-${pgliteVersion()}.tar.gz`);

/** How a data folder came to hold a database on this start. */
export type Origin = "existing" | "template" | "initdb";

/**
 * Lays the template out in a data folder that holds no database yet. PG_VERSION is what makes
 * a folder a database to PGlite, so it is written last: a lay-out cut short is redone next time.
 */
export async function seedDataDir(dataDir: string, template = templateFile()): Promise<Origin> {
  if (existsSync(join(dataDir, "PG_VERSION"))) return "existing";
  if (!existsSync(template)) return "initdb";
  await layOut(template, dataDir);
  return "template";
}

const BLOCK = 512;

/** Reads a stream in the amounts asked for. */
function reader(stream: AsyncIterable<Buffer>) {
  const source = stream[Symbol.asyncIterator]();
  let rest: Buffer = Buffer.alloc(0);
  async function* take(length: number): AsyncGenerator<Buffer> {
    while (length > 0) {
      if (rest.length === 0) {
        const next = await source.next();
        if (next.done) throw new Error("the template ends in the middle of a file");
        rest = next.value;
      }
      const piece = rest.subarray(0, length);
      rest = rest.subarray(piece.length);
      length -= piece.length;
      yield piece;
    }
  }
  return {
    take,
    async read(length: number): Promise<Buffer> {
      const pieces: Buffer[] = [];
      for await (const piece of take(length)) pieces.push(piece);
      return Buffer.concat(pieces);
    },
  };
}

const text = (header: Buffer, start: number, length: number) =>
  header
    .subarray(start, start + length)
    .toString("utf8")
    .replace(/\0.*$/s, "");

/** Extracts the template's directories and files (ustar, as PGlite dumps them), and nothing else. */
async function layOut(template: string, dataDir: string): Promise<void> {
  const root = resolve(dataDir);
  const archive = reader(createReadStream(template).pipe(createGunzip()));
  let version: Buffer | undefined;
  for (;;) {
    const header = await archive.read(BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const prefix = text(header, 345, 155);
    const name = `${prefix ? `${prefix}/` : ""}${text(header, 0, 100)}`.replace(/^\/+/, "");
    const size = Number.parseInt(text(header, 124, 12).trim() || "0", 8);
    const target = resolve(root, name);
    if (!name || !target.startsWith(root + sep) || !Number.isSafeInteger(size)) {
      throw new Error(
        `the template holds an entry that is not part of a data folder: ${JSON.stringify(name)}`,
      );
    }
    const type = String.fromCharCode(header[156]!);
    if (type === "5") {
      await mkdir(target, { recursive: true, mode: 0o700 });
      continue;
    }
    if (type !== "0" && type !== "\0")
      throw new Error(`the template holds an entry of type ${type}: ${name}`);
    if (name === "PG_VERSION") {
      version = await archive.read(size);
    } else {
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      const handle = await open(target, "w", 0o600);
      try {
        for await (const piece of archive.take(size)) await handle.write(piece);
      } finally {
        await handle.close();
      }
    }
    await archive.read((BLOCK - (size % BLOCK)) % BLOCK);
  }
  if (!version) throw new Error("the template holds no PG_VERSION: it is not a data folder");
  await writeFile(join(root, "PG_VERSION"), version, { mode: 0o600 });
}
