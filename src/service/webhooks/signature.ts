/**
 * The delivery signature: `Toolshed-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
 * "<t>.<body>")>`, one `v1` per signing secret (the new and the previous one while a rotation's
 * overlap lasts). The timestamp is inside the MAC so a receiver can refuse old replays. What a
 * receiver does is the clients' verifyWebhook / verify_webhook (clients/).
 */
import { createHmac, randomBytes } from "node:crypto";

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

/** A new signing secret, shown once. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

function hmacHex(secret: string, text: string): string {
  return createHmac("sha256", secret).update(text).digest("hex");
}
