/** Random bytes from a pool: each byte handed out once, the pool refilled when it runs short. */
import { expect, it } from "vitest";
import { withRandomBytes } from "../src/random-pool.js";
import { newId } from "../src/service/ids.js";

it("hands out each byte of the pool once, in order, and refills it when a request does not fit", () => {
  const spans: { start: number; end: number; bytes: string }[] = [];
  // Odd sizes, so that requests straddle the pool's end (4096 bytes).
  for (let i = 0; i < 600; i++) {
    const n = 1 + (i % 23);
    spans.push(
      withRandomBytes(n, (pool, start, end) => ({ start, end, bytes: pool.toString("hex", start, end) })),
    );
  }
  let refills = 0;
  for (let i = 1; i < spans.length; i++) {
    const [prev, cur] = [spans[i - 1]!, spans[i]!];
    expect(cur.end - cur.start).toBe(1 + (i % 23));
    expect(cur.end).toBeLessThanOrEqual(4096);
    if (cur.start === prev.end) continue;
    // A refill: from the start of fresh bytes, only when the request did not fit.
    refills++;
    expect(cur.start).toBe(0);
    expect(prev.end + (cur.end - cur.start)).toBeGreaterThan(4096);
  }
  expect(refills).toBeGreaterThanOrEqual(1);
  // Fresh bytes: 600 pieces of random bytes, 3-23 bytes long, do not repeat.
  const long = spans.filter((s) => s.end - s.start >= 3).map((s) => s.bytes);
  expect(new Set(long).size).toBe(long.length);
  expect(() => withRandomBytes(4097, () => 0)).toThrow(RangeError);
});

it("ids keep their shape and do not repeat across refills", () => {
  const ids = Array.from({ length: 5000 }, () => newId("job"));
  for (const id of ids.slice(0, 50)) expect(id).toMatch(/^job_[0-9a-z]{20}$/);
  expect(new Set(ids).size).toBe(ids.length);
  expect(newId("aud")).toMatch(/^aud_[0-9a-z]{20}$/);
});
