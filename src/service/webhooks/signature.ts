/**
 * The delivery signature: `Toolshed-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
 * "<t>.<body>")>`. The timestamp is inside the MAC so a receiver can refuse old replays.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmacHex(secret, `${unixSeconds}.${body}`)}`;
}

/** What a receiver does (used by the tests, documented in docs/api.md): true when the header fits. */
export function verifySignature(secret: string, body: string, header: string): boolean {
  const parts = Object.fromEntries(header.split(",").map((kv) => kv.split("=", 2) as [string, string]));
  if (!parts.t || !parts.v1) return false;
  const want = Buffer.from(hmacHex(secret, `${parts.t}.${body}`), "hex");
  const got = Buffer.from(parts.v1, "hex");
  return got.length === want.length && timingSafeEqual(got, want);
}

/** A new signing secret, shown once. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

function hmacHex(secret: string, text: string): string {
  return createHmac("sha256", secret).update(text).digest("hex");
}
