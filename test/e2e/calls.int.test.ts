/**
 * End to end through the real HTTP server, Redis, BullMQ worker and Docker sandbox: the six
 * built-ins with the reference's texts, SSE streaming while Bash runs, deny and ask paths.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceContainers } from "../sandbox/harness.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

let h: Harness;
let agentKey: string;
let adminKey: string;
let sid: string;
let tenantId: string;

interface JobLike {
  result?: { content: { text?: string }[] };
}
const text = (job: JobLike) => (job.result?.content ?? []).map((b) => b.text ?? "").join("");

async function run(tool: string, input: Record<string, unknown>) {
  const res = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
    key: agentKey,
    body: { tool, input },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.job;
}

beforeAll(async () => {
  h = await startHarness();
  const t = await seedTenant(h.call);
  agentKey = t.agentKey;
  tenantId = t.tenantId;
  adminKey = t.adminKey;
  const rules = {
    allow: ["Read", "Write", "Edit", "Grep", "Glob", "Bash"],
    deny: ["Bash(rm:*)"],
    ask: ["Bash(touch:*)"],
  };
  const put = await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: adminKey, body: rules });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const s = await h.call("POST", "/v1/sessions", { key: agentKey, body: {} });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  sid = s.body.id;
});

afterAll(async () => {
  if (sid) await h?.call("DELETE", `/v1/sessions/${sid}`, { key: agentKey });
  await h?.stop();
});

describe("a session runs the built-ins end to end", () => {
  it("Bash keeps the working directory between calls (not the environment) and reports the exit code", async () => {
    const first = await run("Bash", {
      command: "mkdir -p /workspace/sub && cd /workspace/sub && export X=1",
    });
    expect(first.status).toBe("succeeded");
    const second = await run("Bash", { command: 'pwd; echo "x=$X."; exit 3' });
    expect(second.status).toBe("failed");
    expect(second.result.exitCode).toBe(3);
    expect(text(second)).toContain("/workspace/sub\nx=.");
    const session = await h.call("GET", `/v1/sessions/${sid}`, { key: agentKey });
    expect(session.body.cwd).toBe("/workspace/sub");
    const back = await run("Bash", { command: "cd /workspace && pwd" });
    expect(text(back)).toBe("/workspace\n");
    // attack22c: a command that removes the directory it stands in leaves the next in /workspace
    // (on main every later call failed: "cwd /workspace/gone: no such directory").
    await run("Bash", { command: "mkdir -p /workspace/gone && cd /workspace/gone" });
    expect((await run("Bash", { command: 'rmdir "$PWD"' })).status).toBe("succeeded");
    expect(text(await run("Bash", { command: "pwd" }))).toBe("/workspace\n");
    // The command's own EXIT trap can write the directory it reports: a NUL in it is not kept
    // (on main every later call failed: "argument contains a NUL byte").
    await run("Bash", { command: `trap 'printf "/workspace/a\\0b" >&9' EXIT` });
    expect(text(await run("Bash", { command: "pwd" }))).toBe("/workspace\n");
  });

  it("Write → Read → Edit → Bash → Grep → Glob with the reference's texts", async () => {
    // Toolshed reports the real line count (docs/permission.md#fixed-file-tools-keep-their-state), not the
    // reference's 3.
    const w = await run("Write", { file_path: "/workspace/notes.txt", content: "alpha\nbeta\n" });
    expect(w.status).toBe("succeeded");
    expect(text(w)).toBe("The file /workspace/notes.txt has been written successfully (2 lines).");

    const r = await run("Read", { file_path: "/workspace/notes.txt" });
    expect(text(r)).toBe("     1\talpha\n     2\tbeta");

    const e = await run("Edit", {
      file_path: "/workspace/notes.txt",
      old_string: "beta",
      new_string: "gamma",
    });
    expect(text(e)).toBe("Successfully replaced 1 occurrence in /workspace/notes.txt");

    const b = await run("Bash", { command: "cat /workspace/notes.txt" });
    expect(b.status).toBe("succeeded");
    expect(text(b)).toBe("alpha\ngamma\n");

    const g = await run("Grep", { pattern: "gam", path: "/workspace" });
    expect(text(g)).toBe("/workspace/notes.txt");

    const gl = await run("Glob", { pattern: "*.txt", path: "/workspace" });
    expect(text(gl)).toBe("/workspace/notes.txt");

    const missing = await run("Edit", {
      file_path: "/workspace/notes.txt",
      old_string: "zzz",
      new_string: "y",
    });
    expect(missing.status).toBe("failed");
    expect(text(missing)).toMatch(/^Error: /);
  });

  it("SSE delivers Bash output while the command still runs, and resumes with Last-Event-ID", async () => {
    // The script cannot finish until the gate file exists, and the test opens the gate only once
    // the stream has shown "a": without streaming, it prints "closed" instead of "b".
    const script =
      "echo a\nfor i in $(seq 300); do [ -e /workspace/sse-gate ] && echo b && exit 0; sleep 0.1; done\necho closed\n";
    expect((await run("Write", { file_path: "/workspace/sse-gate.sh", content: script })).status).toBe(
      "succeeded",
    );
    const sub = await h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: agentKey,
      body: { tool: "Bash", input: { command: "bash /workspace/sse-gate.sh" } },
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(202);
    const jid = sub.body.job.id;
    const res = await fetch(`${h.url}/v1/jobs/${jid}/events`, {
      headers: { authorization: `Bearer ${agentKey}` },
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    let beforeGate = "";
    const ids: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      if (!beforeGate && /event: chunk\ndata: .*a\\n/.test(buf)) {
        beforeGate = buf;
        const sb = await h.service.deps.sandboxes.acquire({ sessionId: sid, tenantId });
        await sb.writeFile("/workspace/sse-gate", "");
      }
      if (buf.includes("event: result")) break;
    }
    await reader.cancel().catch(() => undefined);
    for (const m of buf.matchAll(/^id: (.+)$/gm)) ids.push(m[1]!);
    expect(beforeGate, buf).not.toBe("");
    expect(beforeGate).not.toContain("event: result");
    expect(text((await waitForJob(h.call, agentKey, jid)) as JobLike)).toBe("a\nb\n");

    // Resume after the first event: the first one is not sent again.
    const again = await fetch(`${h.url}/v1/jobs/${jid}/events`, {
      headers: { authorization: `Bearer ${agentKey}`, "last-event-id": ids[0]! },
    });
    const rest = await again.text();
    expect(rest).not.toContain(`id: ${ids[0]}\n`);
    expect(rest).toContain("event: result");
  });

  it("a denied call finishes at once with the denial message", async () => {
    const res = await h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: agentKey,
      body: { tool: "Bash", input: { command: "rm -rf /workspace/x" } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.job.status).toBe("denied");
    expect(res.body.job.decision.rule).toBe("Bash(rm:*)");
    expect(res.body.job.result.state).toBe("denied");
  });

  it("an ask call runs once approved, and a second answer is a conflict", async () => {
    const res = await h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: agentKey,
      body: { tool: "Bash", input: { command: "touch /workspace/approved" } },
    });
    expect(res.body.job.status, JSON.stringify(res.body)).toBe("awaiting_approval");
    const jid = res.body.job.id;
    const ok = await h.call("POST", `/v1/jobs/${jid}/approval`, { key: adminKey, body: { approve: true } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const twice = await h.call("POST", `/v1/jobs/${jid}/approval`, {
      key: adminKey,
      body: { approve: true },
    });
    expect(twice.status).toBe(409);
    const job = await waitForJob(h.call, agentKey, jid, { timeoutMs: 30_000 });
    expect(job.status, JSON.stringify(job)).toBe("succeeded");
    const check = await run("Bash", { command: "ls /workspace/approved" });
    expect(text(check)).toBe("/workspace/approved\n");
  });

  it("cancel kills a running call", async () => {
    const sub = await h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: agentKey,
      body: { tool: "Bash", input: { command: "sleep 30" } },
    });
    const jid = sub.body.job.id;
    await waitForJob(h.call, agentKey, jid, { until: ["running"], timeoutMs: 30_000 });
    await h.call("POST", `/v1/jobs/${jid}/cancel`, { key: agentKey });
    const job = await waitForJob(h.call, agentKey, jid, { timeoutMs: 15_000 });
    expect(job.status, JSON.stringify(job)).toBe("cancelled");
  });

  it("deleting a session stops its running call and removes its sandbox", async () => {
    const own = await h.call("POST", "/v1/sessions", { key: agentKey, body: {} });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    const ownSid: string = own.body.id;
    const sub = await h.call("POST", `/v1/sessions/${ownSid}/calls`, {
      key: agentKey,
      body: { tool: "Bash", input: { command: "sleep 30" } },
    });
    const jid = sub.body.job.id;
    await waitForJob(h.call, agentKey, jid, { until: ["running"], timeoutMs: 30_000 });
    expect((await h.call("DELETE", `/v1/sessions/${ownSid}`, { key: agentKey })).status).toBe(204);
    // Told over the bus, its worker stops the command instead of waiting the 30 s out.
    const job = await waitForJob(h.call, agentKey, jid, { timeoutMs: 15_000 });
    expect(job.status, JSON.stringify(job)).toBe("cancelled");
    // It had started: the caller is told it may have partly run, never that it did not start.
    expect(JSON.stringify(job.result)).not.toMatch(/before it started/);
    await pollUntil(
      () => serviceContainers(h.config.SERVICE_ID, ownSid),
      (list) => list.length === 0,
      { timeoutMs: 15_000, what: "the deleted session's container to be removed" },
    );
  });
});
