/**
 * Checking a webhook delivery on the receiving side: `Toolshed-Signature: t=<unix seconds>,v1=<hex>`
 * is HMAC-SHA256 with the webhook's secret over `<t>.<raw body>` (docs/api.md, Webhooks). WebCrypto
 * only (Node 20+, browsers, Deno, Bun), like the rest of the client: no runtime dependency.
 */
import { ToolshedError } from "./errors.js";
import type { ApprovalItem, JobData } from "./types.js";

/** The body of a delivery (`Toolshed-Event` repeats `event`; `Toolshed-Delivery` repeats `id`). */
export interface WebhookDelivery {
  /** The delivery id, the same on every attempt: drop a delivery whose id you have handled. */
  id: string;
  event: "job.awaiting_approval" | "job.awaiting_external" | "job.finished" | "approval.expired";
  createdAt: string;
  tenantId: string;
  /** `{job}`, or for `job.awaiting_approval` the inbox item `{job, decision, expiresAt}`. */
  data: { job: JobData } & Partial<Omit<ApprovalItem, "job">>;
}

export interface VerifyWebhookOptions {
  /** The webhook's secret (`whsec_…`); while rotating, the new and the old one (any may match). */
  secret: string | readonly string[];
  /** The raw request body as received, before any JSON parsing (bytes or their UTF-8 text). */
  body: string | Uint8Array;
  /** The `Toolshed-Signature` header (missing: refused). */
  signature: string | null | undefined;
  /** How far `t` may be from `now`, in seconds, either way (default 300): older is a replay. */
  toleranceSeconds?: number;
  /** The receiver's clock in unix seconds (default: now). */
  now?: number;
}

/** A signature that does not verify: missing, malformed, or made with another secret or body. */
export const WEBHOOK_SIGNATURE_INVALID = "WEBHOOK_SIGNATURE_INVALID";
/** A signature whose timestamp is outside the tolerance: a replay, or a clock far off. */
export const WEBHOOK_TIMESTAMP_OUT_OF_RANGE = "WEBHOOK_TIMESTAMP_OUT_OF_RANGE";

/**
 * The delivery, parsed, when its signature verifies with one of the secrets and its timestamp is
 * within the tolerance; otherwise a ToolshedError (status 0) with one of the two codes above. Answer
 * a refused delivery 400 (Toolshed retries it, then gives up) and a verified one 2xx.
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookDelivery> {
  const body = typeof options.body === "string" ? new TextEncoder().encode(options.body) : options.body;
  const parsed = parseSignature(options.signature);
  if (!parsed) throw refused(WEBHOOK_SIGNATURE_INVALID, "the Toolshed-Signature header is missing or malformed");
  const secrets = typeof options.secret === "string" ? [options.secret] : [...options.secret];
  if (secrets.length === 0 || secrets.some((s) => s.length === 0))
    throw refused(WEBHOOK_SIGNATURE_INVALID, "no secret to verify with: pass the webhook's secret");
  const signed = concat(new TextEncoder().encode(`${parsed.t}.`), body);
  let matched = false;
  for (const secret of secrets) {
    const mac = await hmacSha256(secret, signed);
    // Every candidate is compared in full (no early exit that would time which one matched).
    for (const v1 of parsed.v1) matched = constantTimeEqual(mac, v1) || matched;
  }
  if (!matched)
    throw refused(WEBHOOK_SIGNATURE_INVALID, "the signature does not match this body with the given secret(s)");
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - parsed.t) > tolerance)
    throw refused(
      WEBHOOK_TIMESTAMP_OUT_OF_RANGE,
      `the signature's timestamp is ${now - parsed.t} s from this clock (tolerance ${tolerance} s): a replay, or a clock to fix`,
    );
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookDelivery;
  } catch {
    throw refused(WEBHOOK_SIGNATURE_INVALID, "the signed body is not JSON");
  }
}

/** `t=<digits>` once and one or more `v1=<64 hex>`; other schemes are ignored (a later version). */
function parseSignature(header: string | null | undefined): { t: number; v1: Uint8Array[] } | undefined {
  if (!header) return undefined;
  let t: number | undefined;
  const v1: Uint8Array[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t") {
      if (t !== undefined || !/^\d{1,12}$/.test(value)) return undefined;
      t = Number(value);
    } else if (key === "v1") {
      if (!/^[0-9a-f]{64}$/i.test(value)) return undefined;
      v1.push(Uint8Array.from(value.match(/../g)!.map((h) => Number.parseInt(h, 16))));
    }
  }
  return t === undefined || v1.length === 0 ? undefined : { t, v1 };
}

async function hmacSha256(secret: string, data: Uint8Array): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, data as Uint8Array<ArrayBuffer>));
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function refused(code: string, message: string): ToolshedError {
  return new ToolshedError(0, { error: { code, message } } as never);
}
