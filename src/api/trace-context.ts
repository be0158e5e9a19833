/**
 * W3C Trace Context (`traceparent: 00-<trace id>-<parent id>-<flags>`): a valid header continues
 * the caller's trace; a missing or malformed one (wrong shape, version ff, all-zero ids) starts a
 * new trace, as the recommendation says, rather than failing the request.
 */
import { randomFillSync } from "node:crypto";

export interface TraceContext {
  traceId: string;
  /** This request's own span id (the `parent-id` of what it calls). */
  spanId: string;
  flags: string;
  /** The caller's span id, when the trace was continued. */
  parentId?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The caller's trace (when `header` is a valid traceparent) or a new one; always a new span. */
export function traceFrom(header: string | undefined): TraceContext {
  const spanId = randomHex(8);
  const m = header ? TRACEPARENT.exec(header.trim()) : null;
  if (m) {
    const [, version, traceId, parentId, flags, rest] = m as unknown as string[];
    // Version 00 has exactly four fields; a later version may append some, ff is forbidden.
    const versionOk = version === "00" ? rest === undefined : version !== "ff";
    if (versionOk && !/^0+$/.test(traceId!) && !/^0+$/.test(parentId!))
      return { traceId: traceId!, spanId, flags: flags!, parentId: parentId! };
  }
  return { traceId: randomHex(16), spanId, flags: "00" };
}

/** The traceparent naming this request's span (sent back, and onward to whatever it calls). */
export function formatTraceparent(t: TraceContext): string {
  return `00-${t.traceId}-${t.spanId}-${t.flags}`;
}

/**
 * Ids are cut from a pool of random bytes filled 4 KiB at a time (as `randomUUID` does): a
 * `randomBytes` call per id cost ~4 µs, two per request.
 */
const pool = Buffer.allocUnsafeSlow(4096);
let used = pool.length;

function randomHex(bytes: number): string {
  for (;;) {
    if (used + bytes > pool.length) {
      randomFillSync(pool);
      used = 0;
    }
    const hex = pool.toString("hex", used, used + bytes);
    used += bytes;
    // An all-zero id is invalid; astronomically unlikely, but cheap to rule out.
    if (!/^0+$/.test(hex)) return hex;
  }
}
