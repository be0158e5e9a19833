/**
 * The egress policy for everything the host fetches for a tenant: which host names and addresses
 * it refuses, and the operator's exceptions (`EGRESS_ALLOW`: CIDRs, addresses, host names,
 * `*.suffix` wildcards). Pure; the lookup hook and fetch apply it at connect time.
 */
import { type RefusedAddress, refusedAddress } from "./address-ranges.js";
import { type Cidr, inCidr, parseCidr, parseIp } from "./ip-address.js";

/** The operator's exceptions, parsed. */
export interface EgressAllowList {
  cidrs: Cidr[];
  /** Lower-case names; an entry `*.corp.example` matches every name under it. */
  hosts: string[];
}

/** Why a connection is refused; `message` is safe to show to the tenant admin. */
export interface EgressRefusal {
  host: string;
  reason: string;
  address?: RefusedAddress;
}

/** Names that lead to the host itself or to a cloud's instance metadata, whatever DNS says. */
const REFUSED_NAMES = [
  "localhost",
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
];

/** Parses `EGRESS_ALLOW`; the error names the first entry that is neither a CIDR nor a host name. */
export function parseEgressAllow(text: string): EgressAllowList | { error: string } {
  const allow: EgressAllowList = { cidrs: [], hosts: [] };
  for (const raw of text.split(",")) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    const cidr = parseCidr(entry);
    if (cidr) allow.cidrs.push(cidr);
    else if (/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry)) {
      allow.hosts.push(entry);
    } else return { error: `'${raw.trim()}' is neither a CIDR (10.0.0.0/8, ::1/128) nor a host name` };
  }
  return allow;
}

/** A host name as compared: lower case, no trailing dot, no IPv6 brackets. */
export function normalizeHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[(.*)\]$/, "$1");
}

export class EgressPolicy {
  constructor(readonly allow: EgressAllowList = { cidrs: [], hosts: [] }) {}

  /** Whether the operator allowed this host name (then its addresses are not checked). */
  allowsHost(host: string): boolean {
    const name = normalizeHost(host);
    return this.allow.hosts.some((h) => (h.startsWith("*.") ? name.endsWith(h.slice(1)) : name === h));
  }

  /** What can be judged from the name alone: a refused name or an IP literal; null otherwise. */
  checkHost(host: string): EgressRefusal | null {
    const name = normalizeHost(host);
    if (this.allowsHost(name)) return null;
    const literal = parseIp(name);
    if (literal) return this.checkAddress(name, literal);
    if (REFUSED_NAMES.includes(name) || name.endsWith(".localhost")) {
      return { host: name, reason: `${name} is a local or cloud-metadata name` };
    }
    return null;
  }

  /** Whether `host` may be reached at the resolved `bytes`. */
  checkAddress(host: string, bytes: Uint8Array): EgressRefusal | null {
    const name = normalizeHost(host);
    if (this.allowsHost(name) || this.allow.cidrs.some((c) => inCidr(bytes, c))) return null;
    const refused = refusedAddress(bytes);
    if (!refused) return null;
    const via = parseIp(name) ? `${refused.address} is` : `${name} resolves to ${refused.address},`;
    return { host: name, address: refused, reason: `${via} a ${refused.kind} address (${refused.range})` };
  }
}

/** The text of a refusal, for errors the tenant admin reads. */
export function refusalMessage(r: EgressRefusal): string {
  return `egress refused: ${r.reason}; the operator may allow it with EGRESS_ALLOW`;
}

/** Thrown (or passed to callbacks) when a connection is refused; `code` is stable. */
export class EgressRefusedError extends Error {
  readonly code = "EGRESS_REFUSED";
  constructor(readonly refusal: EgressRefusal) {
    super(refusalMessage(refusal));
    this.name = "EgressRefusedError";
  }
}
