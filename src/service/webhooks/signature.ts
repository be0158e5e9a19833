/**
 * The delivery signature: `Toolshed-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
 * "<t>.<body>")>`, one `v1` per signing secret (the new and the previous one while a rotation's
 * overlap lasts). The timestamp is inside the MAC so a receiver can refuse old replays.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export function signatureHeader(
  secrets: string | readonly string[],
  body: string,
  unixSeconds: number,
): string {
  const macs = (typeof secrets === "string" ? [secrets] : secrets).map(
    (s) => `v1=${hmacHex(s, `${unixSeconds}.${body}`)}`,
  );
  return [`t=${unixSeconds}`, ...macs].join(",");
}

/** What a receiver does (used by the tests; the clients' verifyWebhook also bounds `t`): any `v1` fits. */
export function verifySignature(secret: string, body: string, header: string): boolean {
  const parts = header.split(",").map((kv) => kv.split("=", 2) as [string, string]);
  const t = parts.find(([k]) => k === "t")?.[1];
  if (!t) return false;
  const want = Buffer.from(hmacHex(secret, `${t}.${body}`), "hex");
  return parts.some(([k, v]) => {
    if (k !== "v1") return false;
    const got = Buffer.from(v, "hex");
    return got.length === want.length && timingSafeEqual(got, want);
  });
}

/** A new signing secret, shown once. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

function hmacHex(secret: string, text: string): string {
  return createHmac("sha256", secret).update(text).digest("hex");
}
