/**
 * The TypeScript client's webhook check against the server's own signer (src/service/webhooks/
 * signature.ts): what it accepts and every malformed header it refuses rather than throw on or
 * accept. A real delivery through both clients is in test/api/webhooks.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import { verifyWebhook } from "../../clients/typescript/src/index.js";
import { signatureHeader } from "../../src/service/webhooks/signature.js";

const SECRET = "whsec_test-secret-0123456789";
const BODY = JSON.stringify({
  id: "dlv_1",
  event: "job.finished",
  createdAt: "x",
  tenantId: "ten_1",
  data: { job: { id: "job_1" } },
});
const T = 1_800_000_000;
const signed = signatureHeader(SECRET, BODY, T);
const v1 = signed.split("v1=")[1]!;

const outcome = (
  signature: string | undefined,
  opts: { body?: string | Uint8Array; secret?: string | string[]; now?: number } = {},
) =>
  verifyWebhook({
    secret: opts.secret ?? SECRET,
    body: opts.body ?? BODY,
    signature,
    now: opts.now ?? T,
  }).then(
    (d) => d.id,
    (e: { code: string; status: number }) => `${e.status} ${e.code}`,
  );

describe("verifyWebhook", () => {
  it.each([
    ["the server's header", signed],
    ["spaces after commas", `t=${T}, v1=${v1}`],
    ["v1 first", `v1=${v1},t=${T}`],
    ["upper-case hex", `t=${T},v1=${v1.toUpperCase()}`],
    ["a second v1 that is not ours", `t=${T},v1=${"0".repeat(64)},v1=${v1}`],
    ["an unknown scheme beside it", `t=${T},v0=abc,v1=${v1}`],
  ])("accepts %s", async (_, header) => {
    expect(await outcome(header)).toBe("dlv_1");
  });

  it.each([
    ["no header", undefined],
    ["an empty header", ""],
    ["no t", `v1=${v1}`],
    ["no v1", `t=${T}`],
    ["two t", `t=${T},t=${T},v1=${v1}`],
    ["a t that is not digits", `t=1e9,v1=${v1}`],
    ["a short v1", `t=${T},v1=${v1.slice(2)}`],
    ["a v1 that is not hex", `t=${T},v1=${"z".repeat(64)}`],
    ["a part without =", `t=${T},v1=${v1},junk`],
    ["another t than signed", `t=${T + 1},v1=${v1}`],
  ])("refuses %s", async (_, header) => {
    expect(await outcome(header)).toBe("0 WEBHOOK_SIGNATURE_INVALID");
  });

  it("checks the bytes: the same text as bytes passes, one changed byte does not", async () => {
    expect(await outcome(signed, { body: new TextEncoder().encode(BODY) })).toBe("dlv_1");
    expect(await outcome(signed, { body: `${BODY} ` })).toBe("0 WEBHOOK_SIGNATURE_INVALID");
  });

  it("takes any of several secrets, and refuses none or an empty one", async () => {
    expect(await outcome(signed, { secret: ["whsec_other", SECRET] })).toBe("dlv_1");
    expect(await outcome(signed, { secret: [] })).toBe("0 WEBHOOK_SIGNATURE_INVALID");
    expect(await outcome(signed, { secret: "" })).toBe("0 WEBHOOK_SIGNATURE_INVALID");
  });

  it("bounds the timestamp both ways (300 s by default)", async () => {
    expect(await outcome(signed, { now: T + 300 })).toBe("dlv_1");
    expect(await outcome(signed, { now: T + 301 })).toBe("0 WEBHOOK_TIMESTAMP_OUT_OF_RANGE");
    expect(await outcome(signed, { now: T - 301 })).toBe("0 WEBHOOK_TIMESTAMP_OUT_OF_RANGE");
  });

  it("checks the signature before the clock (a forged header learns nothing about the tolerance)", async () => {
    expect(await outcome(`t=${T + 10_000},v1=${v1}`, { now: T })).toBe("0 WEBHOOK_SIGNATURE_INVALID");
  });
});
