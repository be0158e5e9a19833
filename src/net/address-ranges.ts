/**
 * The addresses the host never connects to for a tenant: loopback, private, link-local,
 * unique-local, CGNAT, multicast, broadcast, reserved and cloud-metadata endpoints, in both
 * families, also when an IPv6 address carries an IPv4 one (mapped, compatible, NAT64, 6to4).
 */
import { type Cidr, formatIp, inCidr, parseCidr } from "./ip-address.js";

/** Why an address is refused; `kind` is stable, `range` the block it fell in. */
export interface RefusedAddress {
  address: string;
  kind: RefusedKind;
  range: string;
}

export type RefusedKind =
  | "cloud-metadata"
  | "loopback"
  | "private"
  | "link-local"
  | "unique-local"
  | "shared (CGNAT)"
  | "this-network"
  | "multicast"
  | "broadcast"
  | "reserved";

// Order matters: the first match names the refusal, so specific blocks come before their parents.
const TABLE: [string, RefusedKind][] = [
  ["169.254.169.254/32", "cloud-metadata"],
  ["169.254.170.2/32", "cloud-metadata"],
  ["100.100.100.200/32", "cloud-metadata"],
  ["168.63.129.16/32", "cloud-metadata"],
  ["fd00:ec2::254/128", "cloud-metadata"],
  ["0.0.0.0/8", "this-network"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "shared (CGNAT)"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "reserved"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "reserved"],
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"],
  ["::/128", "this-network"],
  ["::1/128", "loopback"],
  ["100::/64", "reserved"],
  ["fc00::/7", "unique-local"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "private"],
  ["ff00::/8", "multicast"],
];

const REFUSED: { block: Cidr; text: string; kind: RefusedKind }[] = TABLE.map(([text, kind]) => ({
  block: parseCidr(text)!,
  text,
  kind,
}));

/** IPv6 prefixes whose addresses lead to an IPv4 one: [block, offset of the IPv4 bytes]. */
const EMBEDDING: [Cidr, number][] = [
  [parseCidr("::ffff:0:0/96")!, 12],
  [parseCidr("64:ff9b::/96")!, 12],
  [parseCidr("::/96")!, 12],
  [parseCidr("2002::/16")!, 2],
];

/** The IPv4 address an IPv6 one stands for (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length !== 16) return null;
  for (const [block, at] of EMBEDDING) {
    if (inCidr(bytes, block)) return bytes.slice(at, at + 4);
  }
  return null;
}

/** Why the host must not connect to `bytes`, or null when it may. */
export function refusedAddress(bytes: Uint8Array): RefusedAddress | null {
  const own = REFUSED.find((r) => inCidr(bytes, r.block));
  if (own) return { address: formatIp(bytes), kind: own.kind, range: own.text };
  const v4 = embeddedIpv4(bytes);
  const inner = v4 ? refusedAddress(v4) : null;
  return inner ? { ...inner, address: formatIp(bytes) } : null;
}
