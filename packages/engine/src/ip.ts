// IPv4 and IPv6 addresses and CIDR ranges, parsed once into bigints so that a
// membership test is two integer operations.

export interface AddressRange {
  version: 4 | 6;
  network: bigint;
  mask: bigint;
}

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
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
    address = `${address.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
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

export function parseAddress(text: string): { version: 4 | 6; value: bigint } | undefined {
  const trimmed = text.trim();
  const v4 = parseIPv4(trimmed);
  if (v4 !== undefined) return { version: 4, value: v4 };
  if (!trimmed.includes(":")) return undefined;
  const v6 = parseIPv6(trimmed);
  return v6 === undefined ? undefined : { version: 6, value: v6 };
}

/** A single address or a CIDR block; undefined when it is neither. */
export function parseRange(text: string): AddressRange | undefined {
  const [address, prefix, extra] = text.trim().split("/");
  if (address === undefined || extra !== undefined) return undefined;
  const parsed = parseAddress(address);
  if (!parsed) return undefined;
  const bits = parsed.version === 4 ? 32 : 128;
  let length = bits;
  if (prefix !== undefined) {
    if (!/^\d{1,3}$/.test(prefix)) return undefined;
    length = Number(prefix);
    if (length > bits) return undefined;
  }
  const all = (1n << BigInt(bits)) - 1n;
  const mask = all ^ ((1n << BigInt(bits - length)) - 1n);
  return { version: parsed.version, network: parsed.value & mask, mask };
}

export function inRanges(ranges: readonly AddressRange[], text: string): boolean {
  const address = parseAddress(text);
  if (!address) return false;
  for (const range of ranges) {
    if (range.version === address.version && (address.value & range.mask) === range.network) return true;
  }
  return false;
}
