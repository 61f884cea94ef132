import { randomBytes, randomInt, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";
import { ApiError } from "@signalbox/protocol";
import { PASSWORD_HASH_COST } from "../../config.js";

// scrypt's block size and parallelism, fixed; its cost (log2 N) is the configured one. At
// N=2^14 this is one of OWASP's equivalent settings: about 0.2 s of one core and 16 MiB a
// hash, where N=2^17 would take 128 MiB for each login in flight.
const BLOCK = { r: 8, p: 5 };
const KEY_BYTES = 32;

type Cost = { ln: number; r: number; p: number };

// One setting for the process, as it has one configuration: buildApp sets it from there,
// which spares every caller of hashPassword from carrying it.
let cost: Cost = { ln: PASSWORD_HASH_COST.default, ...BLOCK };
let dummy: Promise<string> | undefined;

/**
 * The cost of hashes made from now on (log2 N, see PASSWORD_HASH_COST). Stored hashes keep
 * their own, so changing it locks nobody out: a password made at another cost still matches.
 */
export function setPasswordHashCost(ln: number): void {
  if (ln === cost.ln) return;
  cost = { ln, ...BLOCK };
  dummy = undefined;
}

function derive(password: string, salt: Buffer, { ln, r, p }: Cost): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** ln, r, p, maxmem: 256 * 2 ** 20 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/**
 * A password as stored: `$scrypt$ln=14,r=8,p=5$<salt>$<key>` (base64), the PHC string form,
 * so that a stronger setting later leaves existing hashes readable.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

const STORED = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

/** Whether the password is the one stored; a stored value it cannot read matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = STORED.exec(stored);
  if (!parts) return false;
  const [, ln, r, p, salt, key] = parts;
  const expected = Buffer.from(key!, "base64");
  const actual = await derive(password, Buffer.from(salt!, "base64"), {
    ln: Number(ln),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash no password matches, checked when there is no user (or no password) to check
 * against: a login for someone unknown takes as long as one with a wrong password made at
 * the current cost.
 */
export function unmatchableHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(32).toString("base64"));
  return dummy;
}

// The reference's rules (the OWASP password strength test): lengths and repeats always;
// the four kinds of character unless the password is a passphrase of 20 characters or more.
const PASSPHRASE_LENGTH = 20;
const REQUIRED: readonly [string, (password: string) => boolean][] = [
  ["be at least 10 characters long", (password) => password.length >= 10],
  ["be at most 128 characters long", (password) => password.length <= 128],
  ["not repeat a character three or more times in a row", (password) => !/(.)\1\1/su.test(password)],
];
const KINDS: readonly [string, (password: string) => boolean][] = [
  ["contain a lowercase letter", (password) => /[a-z]/.test(password)],
  ["contain an uppercase letter", (password) => /[A-Z]/.test(password)],
  ["contain a number", (password) => /[0-9]/.test(password)],
  [
    "contain a symbol (a character other than a letter or a number)",
    (password) => /[^A-Za-z0-9]/.test(password),
  ],
];

/** The rules of the password policy a password breaks, each as "must …" completes it. */
export function policyFailures(password: string): string[] {
  const rules = password.length >= PASSPHRASE_LENGTH ? REQUIRED : [...REQUIRED, ...KINDS];
  return rules.filter(([, passes]) => !passes(password)).map(([rule]) => rule);
}

/** Refuses a password the policy rejects, naming every rule it breaks. */
export function requireStrongPassword(password: string): void {
  const failures = policyFailures(password);
  if (failures.length === 0) return;
  throw new ApiError(
    "OwaspValidationError",
    `The password is too weak: it must ${failures.join("; it must ")}.`,
    failures.map((rule) => ({ message: `The password must ${rule}.`, path: "password" })),
  );
}

// Symbols a shell leaves alone, so the printed password can be pasted into a command.
const ALPHABETS = ["abcdefghijkmnopqrstuvwxyz", "ABCDEFGHJKLMNPQRSTUVWXYZ", "23456789", "%+-.=@_"];

/** A random password the policy accepts: 20 characters, every kind among them. */
export function randomPassword(): string {
  const all = ALPHABETS.join("");
  for (;;) {
    const characters = [
      ...ALPHABETS.map((alphabet) => alphabet[randomInt(alphabet.length)]!),
      ...Array.from({ length: 16 }, () => all[randomInt(all.length)]!),
    ];
    for (let index = characters.length - 1; index > 0; index--) {
      const other = randomInt(index + 1);
      [characters[index], characters[other]] = [characters[other]!, characters[index]!];
    }
    const password = characters.join("");
    if (policyFailures(password).length === 0) return password;
  }
}
