/**
 * IP addresses as bytes (4 for IPv4, 16 for IPv6) and CIDR blocks over them. Pure: the egress
 * policy classifies the exact address a connection goes to, so parsing must be strict and total.
 */

/** An address or block: `bytes` has 4 (IPv4) or 16 (IPv6) entries. */
export interface Cidr {
  bytes: Uint8Array;
  prefix: number;
}

/** Dotted-quad IPv4 (no shorthand forms: URL parsing and resolvers already normalise those). */
export function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (const [i, part] of parts.entries()) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return null;
    bytes[i] = Number(part);
  }
  return bytes;
}

/** IPv6 with `::` and a dotted-quad tail; a zone (`%eth0`) and brackets are dropped. */
export function parseIpv6(text: string): Uint8Array | null {
  const bare = text.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (!/^[0-9a-fA-F:.]+$/.test(bare)) return null;
  const halves = bare.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string | undefined): number[] | null => {
    if (!half) return [];
    const out: number[] = [];
    const parts = half.split(":");
    for (const [i, part] of parts.entries()) {
      if (i === parts.length - 1 && part.includes(".")) {
        const v4 = parseIpv4(part);
        if (!v4) return null;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(part)) out.push(Number.parseInt(part, 16));
      else return null;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<number>(halves.length === 1 ? 0 : missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  for (const [i, g] of all.entries()) {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  }
  return bytes;
}

/** Either family; null when `text` is not an IP address. */
export function parseIp(text: string): Uint8Array | null {
  return parseIpv4(text) ?? (text.includes(":") ? parseIpv6(text) : null);
}

/** `a.b.c.d/n`, `x::y/n`, or a bare address (a /32 or /128). */
export function parseCidr(text: string): Cidr | null {
  const [addr = "", prefixText, extra] = text.trim().split("/");
  if (extra !== undefined) return null;
  const bytes = parseIp(addr);
  if (!bytes) return null;
  const max = bytes.length * 8;
  if (prefixText === undefined) return { bytes, prefix: max };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return null;
  return { bytes, prefix: Number(prefixText) };
}

/** Whether `bytes` lies in `block` (same family only). */
export function inCidr(bytes: Uint8Array, block: Cidr): boolean {
  if (bytes.length !== block.bytes.length) return false;
  let left = block.prefix;
  for (let i = 0; left > 0; i++, left -= 8) {
    const mask = left >= 8 ? 0xff : (0xff << (8 - left)) & 0xff;
    if ((bytes[i]! & mask) !== (block.bytes[i]! & mask)) return false;
  }
  return true;
}

/** The canonical text of an address (dotted quad, or IPv6 groups without compression). */
export function formatIp(bytes: Uint8Array): string {
  if (bytes.length === 4) return bytes.join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(":");
}
