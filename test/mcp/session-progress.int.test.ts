/**
 * The session MCP server with the official MCP client's own settings: a call longer than the
 * client's 60 s default request timeout completes because the server sends progress
 * notifications (the client sends a progressToken and resets its timeout on each), and an ASK
 * answer says "Permission required" once.
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

const text = (r: Record<string, unknown>) =>
  ((r.content ?? []) as { type: string; text?: string }[]).map((b) => b.text ?? "").join("");

beforeAll(async () => {
  h = await startHarness();
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
  it("a 70 s Bash call completes under the client's 60 s timeout thanks to progress", async () => {
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: "Bash", arguments: { command: "sleep 70; echo slept" } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
        resetTimeoutOnProgress: true,
      },
    );
    expect(result.isError, JSON.stringify(result)).toBe(false);
    expect(text(result)).toBe("slept\n");
    // One every 10 s while it ran: at least the six before the client's own 60 s would have ended it.
    expect(progress.length).toBeGreaterThanOrEqual(6);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress[0]!.message).toMatch(/^job job_\w+ (running|queued) for \d+ s$/);
  }, 150_000);

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
