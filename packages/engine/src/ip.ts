// IPv4 and IPv6 addresses and CIDR ranges, parsed once so that a membership test is two
// integer operations. IPv4 stays in 32-bit numbers: bigint arithmetic allocates.

import { rememberingLast } from "./remembered.js";

export type Address = { version: 4; value: number } | { version: 6; value: bigint };

export type AddressRange =
  | { version: 4; network: number; mask: number }
  | { version: 6; network: bigint; mask: bigint };

const DOT = 46;
const ZERO = 48;

/** Four decimal parts of one to three digits each, none above 255 (leading zeros allowed). */
function parseIPv4(text: string): number | undefined {
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : DOT;
    if (code === DOT) {
      if (digits === 0 || part > 255 || ++parts > 4) return undefined;
      value = value * 256 + part;
      part = 0;
      digits = 0;
    } else {
      const digit = code - ZERO;
      if (digit < 0 || digit > 9 || ++digits > 3) return undefined;
      part = part * 10 + digit;
    }
  }
  return parts === 4 ? value : undefined;
}

function parseIPv6(text: string): bigint | undefined {
  let address = text;
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hex groups.
  const lastColon = address.lastIndexOf(":");
  if (address.includes(".", lastColon)) {
    const v4 = parseIPv4(address.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    address = `${address.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    value = (value << 16n) | BigInt(Number.parseInt(group, 16));
  }
  return value;
}

function parse(text: string): Address | undefined {
  const trimmed = text.trim();
  const v4 = parseIPv4(trimmed);
  if (v4 !== undefined) return { version: 4, value: v4 };
  if (!trimmed.includes(":")) return undefined;
  const v6 = parseIPv6(trimmed);
  return v6 === undefined ? undefined : { version: 6, value: v6 };
}

export const parseAddress = rememberingLast(parse);

/** A single address or a CIDR block; undefined when it is neither. */
export function parseRange(text: string): AddressRange | undefined {
  const [address, prefix, extra] = text.trim().split("/");
  if (address === undefined || extra !== undefined) return undefined;
  const parsed = parse(address);
  if (!parsed) return undefined;
  const bits = parsed.version === 4 ? 32 : 128;
  let length = bits;
  if (prefix !== undefined) {
    if (!/^\d{1,3}$/.test(prefix)) return undefined;
    length = Number(prefix);
    if (length > bits) return undefined;
  }
  if (parsed.version === 4) {
    const mask = length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0;
    return { version: 4, network: (parsed.value & mask) >>> 0, mask };
  }
  const mask = ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - length)) - 1n);
  return { version: 6, network: parsed.value & mask, mask };
}

export function inRanges(ranges: readonly AddressRange[], text: string): boolean {
  const address = parseAddress(text);
  if (!address) return false;
  for (const range of ranges) {
    if (range.version === 4) {
      if (address.version === 4 && (address.value & range.mask) >>> 0 === range.network) return true;
    } else if (address.version === 6 && (address.value & range.mask) === range.network) return true;
  }
  return false;
}
