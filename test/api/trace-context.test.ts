/** W3C traceparent parsing: what continues the caller's trace and what starts a new one. */
import { describe, expect, it } from "vitest";
import { formatTraceparent, traceFrom } from "../../src/api/trace-context.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";

describe("traceFrom", () => {
  it("continues a valid trace with a new span of its own", () => {
    const t = traceFrom(`00-${TRACE}-${PARENT}-01`);
    expect(t).toMatchObject({ traceId: TRACE, parentId: PARENT, flags: "01" });
    expect(t.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(t.spanId).not.toBe(PARENT);
    expect(formatTraceparent(t)).toBe(`00-${TRACE}-${t.spanId}-01`);
  });

  it("accepts a later version with extra fields", () => {
    expect(traceFrom(`01-${TRACE}-${PARENT}-01-future`).traceId).toBe(TRACE);
  });

  it.each([
    undefined,
    "",
    "garbage",
    `00-${TRACE}-${PARENT}-01-extra`,
    `ff-${TRACE}-${PARENT}-01`,
    `00-${"0".repeat(32)}-${PARENT}-01`,
    `00-${TRACE}-${"0".repeat(16)}-01`,
    `00-${TRACE.toUpperCase()}-${PARENT}-01`,
    `00-${TRACE.slice(1)}-${PARENT}-01`,
  ])("%j starts a new trace", (header) => {
    const t = traceFrom(header);
    expect(t.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(t.traceId).not.toBe(TRACE);
    expect(t.parentId).toBeUndefined();
    expect(t.flags).toBe("00");
  });
});

describe("new ids", () => {
  it("are valid and distinct across many requests (more than one refill of the random pool)", () => {
    const traces = new Set<string>();
    const spans = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const t = traceFrom(undefined);
      expect(t.traceId).toMatch(/^(?!0+$)[0-9a-f]{32}$/);
      expect(t.spanId).toMatch(/^(?!0+$)[0-9a-f]{16}$/);
      traces.add(t.traceId);
      spans.add(t.spanId);
    }
    expect(traces.size).toBe(2000);
    expect(spans.size).toBe(2000);
  });
});
