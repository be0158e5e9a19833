/**
 * What an MCP tool call tells the server about the call it belongs to (docs/api.md#job-statuses):
 * the call's idempotency key and attempt as headers of its `tools/call` (on a kept, shared
 * connection too: set for that request only) and in its `_meta`; and the attempt's fence asked
 * right before the request, so a superseded run sends none. A tiny MCP server on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ATTEMPT_HEADER,
  ATTEMPT_META,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_META,
  McpClient,
} from "../../src/toolkit/mcp/mcp-client.js";
import { startTinyMcpServer, type TinyMcpServer } from "./support.js";

let tiny: TinyMcpServer;

beforeAll(async () => {
  tiny = await startTinyMcpServer({ answerCalls: true, act: "acted" });
});

afterAll(async () => {
  tiny?.server.closeAllConnections();
  await new Promise((r) => tiny?.server.close(r));
});

describe.each([true, false])("an MCP call over HTTP (stateful: %s)", (stateful) => {
  const client = () =>
    new McpClient({
      name: "s",
      transport: "http",
      url: tiny.url,
      stateful,
      headers: { "Idempotency-Key": "tenant's" },
    });

  it("carries the call's key and attempt in its headers and _meta; other requests carry none", async () => {
    const c = client();
    const from = tiny.calls.length;
    const attempt = (run: number) => ({ key: "job_k", run, fence: async () => undefined });
    await c.callTool("act", {}, { attempt: attempt(1) });
    await c.callTool("act", {}, { attempt: attempt(2) });
    await c.callTool("act", {});
    await c.close();
    const calls = tiny.calls.slice(from);
    expect(
      calls.map((x) => [
        x.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()],
        x.headers[ATTEMPT_HEADER.toLowerCase()],
      ]),
    ).toEqual([
      ["job_k", "1"],
      ["job_k", "2"],
      // Without an attempt (a library host): the tenant's own header, as configured.
      ["tenant's", undefined],
    ]);
    expect(calls.map((x) => x.params._meta)).toEqual([
      { [IDEMPOTENCY_META]: "job_k", [ATTEMPT_META]: 1 },
      { [IDEMPOTENCY_META]: "job_k", [ATTEMPT_META]: 2 },
      undefined,
    ]);
  });

  // attack31: what the model controls (a tool's arguments) cannot name a key or attempt, and calls
  // of several sessions sharing one kept connection each carry their own, never another's.
  it("takes no key from the arguments, and gives concurrent calls each its own", async () => {
    const c = client();
    const from = tiny.calls.length;
    const forged = {
      _meta: { [IDEMPOTENCY_META]: "job_other", [ATTEMPT_META]: 9 },
      [IDEMPOTENCY_META]: "job_other",
    };
    await c.callTool("act", forged);
    await c.callTool("act", forged, { attempt: { key: "job_own", run: 1, fence: async () => undefined } });
    await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        c.callTool("act", {}, { attempt: { key: `job_${i}`, run: i, fence: async () => undefined } }),
      ),
    );
    await c.close();
    const calls = tiny.calls.slice(from);
    const metaOf = (x: (typeof calls)[number]) => x.params._meta as Record<string, unknown> | undefined;
    const headers = calls.map((x) => [
      x.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()],
      x.headers[ATTEMPT_HEADER.toLowerCase()],
    ]);
    expect(headers.slice(0, 2)).toEqual([
      ["tenant's", undefined],
      ["job_own", "1"],
    ]);
    expect(calls[0]!.params._meta).toBeUndefined();
    // Each concurrent request's headers are the ones its own body names.
    for (const [i, x] of calls.slice(2).entries())
      expect(headers[i + 2], JSON.stringify(metaOf(x))).toEqual([
        metaOf(x)?.[IDEMPOTENCY_META],
        String(metaOf(x)?.[ATTEMPT_META]),
      ]);
    expect(new Set(calls.slice(2).map((x) => metaOf(x)?.[IDEMPOTENCY_META])).size).toBe(5);
  });

  it("sends no tools/call when the attempt's fence rejects", async () => {
    const c = client();
    const from = tiny.calls.length;
    const fence = async () => {
      throw new Error("superseded");
    };
    await expect(c.callTool("act", {}, { attempt: { key: "job_z", run: 1, fence } })).rejects.toThrow(
      /superseded/,
    );
    await c.close();
    expect(tiny.calls.slice(from)).toEqual([]);
  });
});
