/**
 * Every session is an MCP server: the official MCP TypeScript client, unchanged, connects to
 * `/v1/sessions/{sid}/mcp` with the agent's key, lists the session's tools with their hints and
 * calls Write, Read and Bash through the real policy, queue, worker and sandbox.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tablesOf } from "../../src/db/db.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";

let h: Harness;
let tenant: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;
let client: Client;

const connect = async (key: string, sessionId = sid, answer?: (message: string) => ElicitResult) => {
  const c = new Client(
    { name: "test-client", version: "1.0.0" },
    answer ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (answer) c.setRequestHandler(ElicitRequestSchema, (req) => answer(req.params.message));
  const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/v1/sessions/${sessionId}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await c.connect(transport);
  return c;
};
const text = (r: Record<string, unknown>) =>
  ((r.content ?? []) as { type: string; text?: string }[]).map((b) => b.text ?? "").join("");

beforeAll(async () => {
  h = await startHarness();
  tenant = await seedTenant(h.call);
  const rules = { allow: ["Read", "Write", "Bash"], deny: ["Bash(rm:*)"], ask: ["Bash(touch:*)"] };
  const put = await h.call("PUT", `/v1/tenants/${tenant.tenantId}/rules`, {
    key: tenant.adminKey,
    body: rules,
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const s = await h.call("POST", "/v1/sessions", { key: tenant.agentKey, body: {} });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  sid = s.body.id;
  client = await connect(tenant.agentKey);
});

afterAll(async () => {
  await client?.close();
  if (sid) await h?.call("DELETE", `/v1/sessions/${sid}`, { key: tenant.agentKey });
  await h?.stop();
});

describe("a session as an MCP server", () => {
  it("lists the session's tools with schemas and read-only / destructive hints", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["Read", "Write", "Edit", "Bash", "Grep", "Glob"]));
    const read = tools.find((t) => t.name === "Read")!;
    expect(read.inputSchema).toMatchObject({ type: "object", properties: { file_path: { type: "string" } } });
    expect(read.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tools.find((t) => t.name === "Bash")!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
  });

  it("calls Write, Read and Bash in the session's sandbox", async () => {
    const w = await client.callTool({
      name: "Write",
      arguments: { file_path: "/workspace/mcp.txt", content: "from mcp\n" },
    });
    expect(w.isError, JSON.stringify(w)).toBe(false);
    expect(text(w)).toBe("The file /workspace/mcp.txt has been written successfully (1 line).");

    const r = await client.callTool({ name: "Read", arguments: { file_path: "/workspace/mcp.txt" } });
    expect(r.isError).toBe(false);
    expect(text(r)).toBe("     1\tfrom mcp");

    const b = await client.callTool({
      name: "Bash",
      arguments: { command: "cat /workspace/mcp.txt; whoami" },
    });
    expect(b.isError, JSON.stringify(b)).toBe(false);
    expect(text(b)).toBe("from mcp\nagent\n");
  });

  it("an ASK answers a tool error naming the job and how to approve it; approval runs it", async () => {
    const res = await client.callTool({ name: "Bash", arguments: { command: "touch /workspace/asked" } });
    expect(res.isError).toBe(true);
    const msg = text(res);
    const jobId = /job (job_[A-Za-z0-9_-]+)/.exec(msg)?.[1];
    expect(jobId, msg).toBeDefined();
    expect(msg).toContain(`POST /v1/jobs/${jobId}/approval`);

    const ok = await h.call("POST", `/v1/jobs/${jobId}/approval`, {
      key: tenant.adminKey,
      body: { approve: true },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const check = await client.callTool({ name: "Bash", arguments: { command: "sleep 1; ls /workspace" } });
    expect(text(check)).toContain("asked");
  });

  it("a denied call and a failing tool are error results; an unknown tool is a protocol error", async () => {
    const denied = await client.callTool({ name: "Bash", arguments: { command: "rm -rf /workspace/x" } });
    expect(denied.isError).toBe(true);
    const failed = await client.callTool({ name: "Read", arguments: { file_path: "/workspace/none.txt" } });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toContain("does not exist");
    const invalid = await client.callTool({ name: "Read", arguments: { nope: 1 } });
    expect(invalid.isError).toBe(true);
    await expect(client.callTool({ name: "NoSuchTool", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it("needs the session's own agent key", async () => {
    await expect(connect("wrong-key")).rejects.toThrow();
    const other = await seedTenant(h.call, "other");
    await expect(connect(other.agentKey)).rejects.toThrow();
    await expect(connect(tenant.adminKey)).rejects.toThrow();
    const raw = await fetch(`${h.url}/v1/sessions/${sid}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(raw.status).toBe(401);
  });

  it("asks the client's user through elicitation; the answer counts where agents may approve", async () => {
    const asked: string[] = [];
    const approving = await connect(tenant.agentKey, sid, (message) => {
      asked.push(message);
      return { action: "accept", content: { approve: true } };
    });
    try {
      // By default agents may not approve: the answer is not applied and the job waits for an admin.
      const held = await approving.callTool({ name: "Bash", arguments: { command: "touch /workspace/e1" } });
      expect(held.isError).toBe(true);
      expect(asked[0]).toMatch(/^Allow Bash \(job job_/);
      expect(text(held)).toMatch(/POST \/v1\/jobs\/job_\w+\/approval/);
      expect(text(held)).toContain("agentsMayApprove");

      const { tenantSettings } = tablesOf(h.service.deps.db);
      await h.service.deps.db
        .insert(tenantSettings)
        .values({ tenantId: tenant.tenantId, agentsMayApprove: true, updatedAt: new Date().toISOString() })
        .onConflictDoUpdate({ target: tenantSettings.tenantId, set: { agentsMayApprove: true } });
      const ran = await approving.callTool({
        name: "Bash",
        arguments: { command: "touch /workspace/e2; echo done" },
      });
      expect(ran.isError, JSON.stringify(ran)).toBe(false);
      expect(text(ran)).toBe("done\n");
    } finally {
      await approving.close();
    }

    const declining = await connect(tenant.agentKey, sid, () => ({
      action: "accept",
      content: { approve: false },
    }));
    try {
      const no = await declining.callTool({ name: "Bash", arguments: { command: "touch /workspace/e3" } });
      expect(no.isError).toBe(true);
      expect(text(no)).toContain("denied");
    } finally {
      await declining.close();
    }
  });

  it("a client without a session id is answered statelessly", async () => {
    const res = await fetch(`${h.url}/v1/sessions/${sid}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tenant.agentKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { tools: { name: string }[] } };
    expect(body.result.tools.map((t) => t.name)).toContain("Read");
    const stale = await fetch(`${h.url}/v1/sessions/${sid}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tenant.agentKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": "not-a-session",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(stale.status).toBe(404);
  });
});
