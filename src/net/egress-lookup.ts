/**
 * The DNS hook of egress: a `lookup` for sockets that resolves the name, then refuses when any
 * address it got is one the policy refuses. The socket connects to exactly the addresses this
 * hook returns, so a name that answers differently later (DNS rebinding) gains nothing.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from "node:dns";
import type { LookupFunction } from "node:net";
import { type EgressPolicy, EgressRefusedError } from "./egress-policy.js";
import { parseIp } from "./ip-address.js";

/** A resolver in `dns.lookup`'s `all: true` shape (tests pass a fake: no DNS traffic). */
export type Resolve = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolve: Resolve = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** A `lookup` for `net.connect`/`http.request` that applies `policy` to every resolved address. */
export function egressLookup(policy: EgressPolicy, resolve: Resolve = systemResolve): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    const early = policy.checkHost(hostname);
    if (early) return callback(new EgressRefusedError(early), "", 0);
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const first = addresses[0];
      if (!first)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
      for (const { address } of addresses) {
        const bytes = parseIp(address);
        const refusal = bytes
          ? policy.checkAddress(hostname, bytes)
          : { host: hostname, reason: `${hostname} resolves to '${address}', which is not an IP address` };
        if (refusal) return callback(new EgressRefusedError(refusal), "", 0);
      }
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}
