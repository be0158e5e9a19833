/**
 * Multi-tenant policy end to end (real HTTP, Redis, BullMQ worker, Docker sandbox): a deny rule,
 * an ask approved with `remember` that then runs and lets the next call through, safety asks
 * that an allow rule cannot silence, dont_ask and explore, an external tool completed by a posted
 * result, and an approval denied by the worker's expiry sweep.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { first, tablesOf } from "../../src/db/db.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

let h: Harness;
let t: Awaited<ReturnType<typeof seedTenant>>;
const sessions: string[] = [];

const as = (key: string, method: string, path: string, body?: unknown) =>
  h.call(method, path, { key, ...(body === undefined ? {} : { body }) });
const newSession = async (body: object = {}) => {
  const res = await as(t.agentKey, "POST", "/v1/sessions", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  sessions.push(res.body.id);
  return res.body.id as string;
};
const submit = async (sid: string, tool: string, input: object, wait = 0) => {
  const res = await as(t.agentKey, "POST", `/v1/sessions/${sid}/calls?wait=${wait}`, { tool, input });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body.job;
};
const text = (job: { result?: { content: { text?: string }[] } }) =>
  (job.result?.content ?? []).map((b) => b.text ?? "").join("");

beforeAll(async () => {
  h = await startHarness();
  t = await seedTenant(h.call, "tenancy");
  const rules = { allow: ["Read", "Write", "Bash(echo:*)", "crm_lookup"], deny: ["Bash(curl:*)"], ask: [] };
  expect((await as(t.adminKey, "PUT", `/v1/tenants/${t.tenantId}/rules`, rules)).status).toBe(200);
  const tool = {
    name: "crm_lookup",
    description: "Looks a customer up in the client's CRM.",
    inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  };
  expect((await as(t.adminKey, "PUT", `/v1/tenants/${t.tenantId}/tools`, [tool])).status).toBe(200);
});

afterAll(async () => {
  for (const sid of sessions) await h?.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
  await h?.stop();
});

describe("tenant policy, end to end", () => {
  it("a deny rule denies without running anything", async () => {
    const sid = await newSession();
    const job = await submit(sid, "Bash", { command: "curl http://example.com" }, 5);
    expect(job).toMatchObject({ status: "denied", decision: { rule: "Bash(curl:*)" } });
  });

  it("an uncovered call waits with a suggestion; approving with remember runs it and lets the next one through", async () => {
    const sid = await newSession();
    const first = await submit(sid, "Bash", { command: "mkdir -p /workspace/out/a" });
    expect(first.status).toBe("awaiting_approval");
    expect(first.decision.suggestions).toEqual(["Bash(mkdir -p:*)"]);
    const ok = await as(t.adminKey, "POST", `/v1/jobs/${first.id}/approval`, {
      approve: true,
      remember: first.decision.suggestions,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await waitForJob(h.call, t.agentKey, first.id, { timeoutMs: 30_000 })).status).toBe("succeeded");
    const next = await submit(sid, "Bash", { command: "mkdir -p /workspace/out/b" }, 30);
    expect(next).toMatchObject({ status: "succeeded", decision: { rule: "Bash(mkdir -p:*)" } });
    const ls = await submit(sid, "Bash", { command: "ls /workspace/out" }, 30);
    expect(text(ls).trim().split(/\s+/)).toEqual(["a", "b"]);
  });

  it("safety asks (rm -rf, .env) are not silenced by an allow rule", async () => {
    const sid = await newSession();
    const rm = await submit(sid, "Bash", { command: "rm -rf /workspace/out" });
    expect(rm).toMatchObject({ status: "awaiting_approval", decision: { bypassImmune: true } });
    const env = await submit(sid, "Write", { file_path: "/workspace/.env", content: "TOKEN=x" });
    expect(env).toMatchObject({ status: "awaiting_approval", decision: { bypassImmune: true } });
  });

  it("dont_ask denies instead of asking; explore denies writes but reads", async () => {
    const dontAsk = await newSession({ mode: "dont_ask" });
    const d = await submit(dontAsk, "Bash", { command: "mkdir /workspace/x" });
    expect(d).toMatchObject({ status: "denied", decision: { mode: "dont_ask" } });
    const explore = await newSession({ mode: "explore" });
    const w = await submit(explore, "Write", { file_path: "/workspace/a.txt", content: "x" });
    expect(w).toMatchObject({ status: "denied", decision: { mode: "explore" } });
    const r = await submit(explore, "Bash", { command: "echo read-only" }, 30);
    expect(r.status).toBe("succeeded");
  });

  it("an external tool completes with the posted result", async () => {
    const sid = await newSession();
    const tools = await as(t.agentKey, "GET", `/v1/sessions/${sid}/tools`);
    expect(tools.body.tools.map((x: { name: string }) => x.name)).toContain("crm_lookup");
    const job = await submit(sid, "crm_lookup", { q: "acme" }, 2);
    expect(job.status).toBe("awaiting_external");
    const res = await as(t.agentKey, "POST", `/v1/jobs/${job.id}/external-result`, {
      content: [{ type: "text", text: "ACME Corp, 42 seats" }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = (await as(t.agentKey, "GET", `/v1/jobs/${job.id}`)).body.job;
    expect(done).toMatchObject({ status: "succeeded", result: { state: "success" } });
    expect(text(done)).toBe("ACME Corp, 42 seats");
  });

  it("an expired approval ends denied by the worker's sweep", async () => {
    const sid = await newSession();
    const job = await submit(sid, "Bash", { command: "mkdir -p /workspace/late" });
    expect(job.status).toBe("awaiting_approval");
    const db = h.service.deps.db;
    const { jobs } = tablesOf(db);
    await db
      .update(jobs)
      .set({ approvalExpiresAt: new Date(0).toISOString() })
      .where(eq(jobs.id, job.id));
    // Read the row, not the API: GET would expire it on read; here the sweep must do it.
    const row = await pollUntil(
      () => first(db.select().from(jobs).where(eq(jobs.id, job.id)).limit(1)),
      (r) => r?.status !== "awaiting_approval",
      { timeoutMs: 10_000, what: "the sweep" },
    );
    expect(row).toMatchObject({ status: "denied", approvedBy: "expiry" });
    expect(text(row as never)).toContain("expired");
    const late = await as(t.adminKey, "POST", `/v1/jobs/${job.id}/approval`, { approve: true });
    expect(late.status).toBe(409);
  });
});
