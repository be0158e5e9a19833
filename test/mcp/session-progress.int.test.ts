/**
 * The session MCP server with the official MCP client: a call longer than the client's request
 * timeout completes because the server sends progress notifications (the client sends a
 * progressToken and resets its timeout on each), and an ASK answer says "Permission required"
 * once. The interval is shortened here (MCP_PROGRESS_INTERVAL_MS) and the client's timeout with
 * it, so that the test takes seconds; the default interval stays below the client's default
 * timeout (test/cli/config-limits.test.ts).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";

let h: Harness;
let agentKey: string;
let sid: string;
let client: Client;
const PROGRESS_MS = 500;
/** The client's own timeout, 6 intervals: the 8 s call outlives it only by being reset. */
const CLIENT_TIMEOUT_MS = 3_000;

const text = (r: Record<string, unknown>) =>
  ((r.content ?? []) as { type: string; text?: string }[]).map((b) => b.text ?? "").join("");

beforeAll(async () => {
  h = await startHarness({ env: { MCP_PROGRESS_INTERVAL_MS: String(PROGRESS_MS) } });
  ({ agentKey } = await seedBashTenant(h.call));
  const s = await h.call("POST", "/v1/sessions", { key: agentKey, body: {} });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  sid = s.body.id;
  client = new Client({ name: "progress-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/v1/sessions/${sid}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${agentKey}` } },
  });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  if (sid) await h?.call("DELETE", `/v1/sessions/${sid}`, { key: agentKey });
  await h?.stop();
});

describe("MCP progress and texts", () => {
  it("a call three times the client's timeout completes thanks to progress", async () => {
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: "Bash", arguments: { command: "sleep 8; echo slept" } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
        resetTimeoutOnProgress: true,
        timeout: CLIENT_TIMEOUT_MS,
      },
    );
    expect(result.isError, JSON.stringify(result)).toBe(false);
    expect(text(result)).toBe("slept\n");
    // One every interval while it ran: at least the six that fit in the client's own timeout.
    expect(progress.length).toBeGreaterThanOrEqual(CLIENT_TIMEOUT_MS / PROGRESS_MS);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress[0]!.message).toMatch(/^job job_\w+ (running|queued) for \d+ s$/);
  }, 60_000);

  it("an ASK reads 'Permission required' once", async () => {
    // A dangerous pattern asks even under an `allow: Bash` rule; its message has its own prefix.
    const res = await client.callTool({ name: "Bash", arguments: { command: "rm -rf /workspace/nothing" } });
    expect(res.isError).toBe(true);
    const said = text(res);
    expect(said).toMatch(/^Permission required/);
    expect(said.split("Permission required").length - 1, said).toBe(1);
    expect(said).toMatch(/held as job job_\w+/);
  });
});
