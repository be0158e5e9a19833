/**
 * W3C Trace Context (`traceparent: 00-<trace id>-<parent id>-<flags>`): a valid header continues
 * the caller's trace; a missing or malformed one (wrong shape, version ff, all-zero ids) starts a
 * new trace, as the recommendation says, rather than failing the request.
 */
import { withRandomBytes } from "../random-pool.js";

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

function randomHex(bytes: number): string {
  for (;;) {
    // From the process's pool of random bytes (random-pool.ts): a `randomBytes` call per id cost ~4 µs.
    const hex = withRandomBytes(bytes, (pool, start, end) => pool.toString("hex", start, end));
    // An all-zero id is invalid; astronomically unlikely, but cheap to rule out.
    if (!/^0+$/.test(hex)) return hex;
  }
}
