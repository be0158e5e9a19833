/** Submitting calls and reading jobs (no worker runs here: the queue is in memory). */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let a: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;

beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  a = await seedTenant(t.call);
  await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, {
    key: a.adminKey,
    body: { allow: ["Read"], deny: ["Bash(rm:*)"], ask: ["Bash(touch:*)"] },
  });
  sid = (await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} })).body.id;
});
afterEach(() => t.close());

const submit = (body: unknown, query = "") =>
  t.call("POST", `/v1/sessions/${sid}/calls${query}`, { key: a.agentKey, body });

describe("POST /v1/sessions/{sid}/calls", () => {
  it("an allowed call is queued with its decision and enqueued by id", async () => {
    const res = await submit({ tool: "Read", input: { file_path: "/workspace/a.txt" } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.job).toMatchObject({
      id: expect.stringMatching(/^job_/),
      sessionId: sid,
      tool: "Read",
      status: "queued",
      decision: { behavior: "allow", rule: "Read", decidedBy: "rule", mode: "default" },
    });
    expect(t.bus.enqueued).toEqual([res.body.job.id]);
  });

  it("400 with details[].path for a bad input, naming the field", async () => {
    const res = await submit({ tool: "Read", input: { file_path: 3 } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION");
    expect(res.body.error.details[0].path).toBe("input.file_path");
    const missing = await submit({ tool: "Read", input: {} });
    expect(missing.body.error.details[0].path).toBe("input.file_path");
    const unknown = await submit({ tool: "Nope", input: {} });
    expect(unknown.body.error.details[0].path).toBe("tool");
    const wait = await submit({ tool: "Read", input: { file_path: "/a" } }, "?wait=61");
    expect(wait.body.error.details[0].path).toBe("wait");
    const noInput = await submit({ tool: "Read" });
    expect(noInput.body.error.details[0].path).toBe("input");
    expect(t.bus.enqueued).toEqual([]);
  });

  it("a denied call is finished at once with the denial message as its result", async () => {
    const res = await submit({ tool: "Bash", input: { command: "rm -rf build" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.job.status).toBe("denied");
    expect(res.body.job.result).toEqual({
      content: [{ type: "text", text: res.body.job.decision.message }],
      state: "denied",
    });
    const waited = await submit({ tool: "Bash", input: { command: "rm x" } }, "?wait=1");
    expect(waited.status).toBe(200);
  });

  it("an ask waits for approval; deny answers it, a second answer is 409", async () => {
    const res = await submit({ tool: "Bash", input: { command: "touch x" } });
    expect(res.body.job.status, JSON.stringify(res.body)).toBe("awaiting_approval");
    const jid = res.body.job.id;
    const agentTry = await t.call("POST", `/v1/jobs/${jid}/approval`, {
      key: a.agentKey,
      body: { approve: true },
    });
    expect(agentTry.status).toBe(403);
    const no = await t.call("POST", `/v1/jobs/${jid}/approval`, {
      key: a.adminKey,
      body: { approve: false },
    });
    expect(no.status, JSON.stringify(no.body)).toBe(200);
    expect(no.body.job.status).toBe("denied");
    const again = await t.call("POST", `/v1/jobs/${jid}/approval`, {
      key: a.adminKey,
      body: { approve: true },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("CONFLICT");
  });

  it("approval with remember adds the rules to the session and enqueues the job", async () => {
    const res = await submit({ tool: "Bash", input: { command: "touch y" } });
    const jid = res.body.job.id;
    const bad = await t.call("POST", `/v1/jobs/${jid}/approval`, {
      key: a.adminKey,
      body: { approve: true, remember: ["Bash(oops"] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("remember[0]");
    const ok = await t.call("POST", `/v1/jobs/${jid}/approval`, {
      key: a.adminKey,
      body: { approve: true, remember: ["Bash(ls:*)"] },
    });
    expect(ok.body.job).toMatchObject({ status: "queued", decision: { decidedBy: "approval" } });
    expect(t.bus.enqueued).toEqual([jid]);
    const s = await t.call("GET", `/v1/sessions/${sid}`, { key: a.agentKey });
    expect(s.body.rules.allow).toEqual(["Bash(ls:*)"]);
  });

  it("an idempotencyKey returns the existing job", async () => {
    const body = { tool: "Read", input: { file_path: "/workspace/a" }, idempotencyKey: "k1" };
    const one = await submit(body);
    const two = await submit(body);
    expect(two.body.job.id).toBe(one.body.job.id);
    expect(t.bus.enqueued).toHaveLength(1);
  });

  it("403 for a tenant admin, 401 without key, 404 for another tenant's session", async () => {
    const admin = await t.call("POST", `/v1/sessions/${sid}/calls`, {
      key: a.adminKey,
      body: { tool: "Read", input: { file_path: "/a" } },
    });
    expect(admin.status).toBe(403);
    const none = await t.call("POST", `/v1/sessions/${sid}/calls`, { body: { tool: "Read", input: {} } });
    expect(none.status).toBe(401);
    const b = await seedTenant(t.call, "other");
    const cross = await t.call("POST", `/v1/sessions/${sid}/calls`, {
      key: b.agentKey,
      body: { tool: "Read", input: { file_path: "/a" } },
    });
    expect(cross.status).toBe(404);
  });
});

describe("jobs", () => {
  it("GET, cancel before start, and cross-tenant 404", async () => {
    const res = await submit({ tool: "Read", input: { file_path: "/workspace/a" } });
    const jid = res.body.job.id;
    const got = await t.call("GET", `/v1/jobs/${jid}`, { key: a.agentKey });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.job.id).toBe(jid);
    const b = await seedTenant(t.call, "other");
    expect((await t.call("GET", `/v1/jobs/${jid}`, { key: b.agentKey })).status).toBe(404);
    expect((await t.call("POST", `/v1/jobs/${jid}/cancel`, { key: b.agentKey })).status).toBe(404);
    const c = await t.call("POST", `/v1/jobs/${jid}/cancel`, { key: a.agentKey });
    expect(c.body.job.status).toBe("cancelled");
    expect(c.body.job.result.state).toBe("interrupted");
  });

  it("SSE replays the events and closes with the result; Last-Event-ID resumes", async () => {
    const res = await submit({ tool: "Bash", input: { command: "rm z" } });
    const jid = res.body.job.id;
    const all = await t.app.request(`/v1/jobs/${jid}/events`, {
      headers: { authorization: `Bearer ${a.agentKey}` },
    });
    const text = await all.text();
    expect(text).toContain("event: status");
    expect(text).toContain("event: result");
    const firstId = /id: (.+)/.exec(text)![1]!;
    const rest = await t.app.request(`/v1/jobs/${jid}/events`, {
      headers: { authorization: `Bearer ${a.agentKey}`, "last-event-id": firstId },
    });
    const restText = await rest.text();
    expect(restText).not.toContain("event: status");
    expect(restText).toContain("event: result");
    const bad = await t.app.request(`/v1/jobs/${jid}/events`, {
      headers: { authorization: `Bearer ${a.agentKey}`, "last-event-id": "nope" },
    });
    expect(bad.status).toBe(400);
  });

  it("the dry-run decision records nothing", async () => {
    const res = await t.call("POST", `/v1/sessions/${sid}/decisions`, {
      key: a.adminKey,
      body: { tool: "Bash", input: { command: "rm -rf /" } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.decision).toMatchObject({ behavior: "deny", rule: "Bash(rm:*)" });
    expect(t.bus.enqueued).toEqual([]);
  });
});

describe("GET /v1/tenants/{tid}/audit", () => {
  it("lists decisions and approvals newest first, for the tenant's admins only", async () => {
    const res = await submit({ tool: "Bash", input: { command: "touch q" } });
    await t.call("POST", `/v1/jobs/${res.body.job.id}/approval`, {
      key: a.adminKey,
      body: { approve: false },
    });
    const log = await t.call("GET", `/v1/tenants/${a.tenantId}/audit?jobId=${res.body.job.id}`, {
      key: a.adminKey,
    });
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    expect(log.body.entries.map((e: { kind: string }) => e.kind)).toEqual(["approval", "decision"]);
    expect((await t.call("GET", `/v1/tenants/${a.tenantId}/audit`, { key: a.agentKey })).status).toBe(403);
    const b = await seedTenant(t.call, "other");
    expect((await t.call("GET", `/v1/tenants/${a.tenantId}/audit`, { key: b.adminKey })).status).toBe(404);
    const bad = await t.call("GET", `/v1/tenants/${a.tenantId}/audit?since=yesterday`, { key: a.adminKey });
    expect(bad.body.error.details[0].path).toBe("since");
  });
});

describe("POST /v1/policy/check", () => {
  it("answers like the CLI; 400 names the field; agents may not", async () => {
    const body = { tool: "Bash", input: { command: "git status" }, rule: "Bash(git:*)" };
    const res = await t.call("POST", "/v1/policy/check", { key: a.adminKey, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ behavior: "allow", readOnly: true, match: true });
    const bad = await t.call("POST", "/v1/policy/check", {
      key: a.adminKey,
      body: { ...body, rules: { allow: ["x", "y", "Bash(("], deny: [], ask: [] } },
    });
    expect(bad.status, JSON.stringify(bad.body)).toBe(400);
    expect(bad.body.error.details[0].path).toBe("rules.allow[2]");
    expect((await t.call("POST", "/v1/policy/check", { key: a.agentKey, body })).status).toBe(403);
  });
});
