/**
 * Policy scenarios through the API (no worker: the queue is in memory): rules, modes, safety
 * asks, the bypass setting, approvals with remember, agent approvals and expiry.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jobs } from "../../src/db/schema.js";
import { expireIfDue, sweepExpiredApprovals } from "../../src/service/calls/approval-expiry.js";
import { ADMIN_KEY } from "../support/harness.js";
import { newTenantCase, scenarioHelpers, type TenantCase } from "./tenancy-fixture.js";

let t: TenantCase["t"];
let a: TenantCase["a"];
let sid: string;

const { as, rules, settings, submit, approve, newSession } = scenarioHelpers(() => ({ t, a, sid }));

beforeEach(async () => {
  ({ t, a, sid } = await newTenantCase());
});
afterEach(() => t.close());

describe("rules and modes", () => {
  it("a deny rule denies, recording the rule that decided", async () => {
    await rules({ deny: ["Bash(curl:*)"], allow: ["Bash"] });
    const job = await submit("Bash", { command: "curl example.com" });
    expect(job).toMatchObject({
      status: "denied",
      decision: { behavior: "deny", rule: "Bash(curl:*)", decidedBy: "rule" },
    });
    expect(job.result.state).toBe("denied");
  });

  it("an uncovered call waits for approval with a suggestion and an expiry", async () => {
    const job = await submit("Bash", { command: "npm test" });
    expect(job.status).toBe("awaiting_approval");
    expect(job.decision).toMatchObject({ behavior: "ask", mode: "default", bypassImmune: false });
    expect(job.decision.suggestions).toEqual(["Bash(npm test:*)"]);
    expect(Date.parse(job.approvalExpiresAt) - Date.parse(job.createdAt)).toBe(3600_000);
  });

  it("approving with remember lets the next matching call through without asking", async () => {
    const first = await submit("Bash", { command: "npm test" });
    const ok = await approve(first.id, { approve: true, remember: first.decision.suggestions });
    expect(ok.body.job).toMatchObject({
      status: "queued",
      approvedBy: expect.stringMatching(/^key_/),
      decision: { decidedBy: "approval" },
    });
    const next = await submit("Bash", { command: "npm test -- --watch=false" });
    expect(next).toMatchObject({
      status: "queued",
      decision: { behavior: "allow", rule: "Bash(npm test:*)" },
    });
    expect(t.bus.enqueued).toEqual([first.id, next.id]);
    const other = await submit("Bash", { command: "npm test" }, await newSession());
    expect(other.status).toBe("awaiting_approval"); // remembered on that session only
  });

  it.each([
    ["Bash", { command: "rm -rf build" }, "Bash"],
    ["Write", { file_path: "/workspace/.env", content: "SECRET=1" }, "Write"],
  ])(
    "a safety ask (%s) is not silenced by an allow rule, nor by accept_edits",
    async (tool, input, allow) => {
      await rules({ allow: [allow] });
      const job = await submit(tool, input);
      expect(job).toMatchObject({
        status: "awaiting_approval",
        decision: { behavior: "ask", bypassImmune: true },
      });
      const edits = await submit(tool, input, await newSession({ mode: "accept_edits" }));
      expect(edits).toMatchObject({ status: "awaiting_approval", decision: { bypassImmune: true } });
    },
  );

  it("dont_ask denies instead of asking; explore denies writes", async () => {
    const dontAsk = await newSession({ mode: "dont_ask" });
    const d = await submit("Bash", { command: "npm test" }, dontAsk);
    expect(d).toMatchObject({
      status: "denied",
      decision: { behavior: "deny", mode: "dont_ask", decidedBy: "mode" },
    });
    const explore = await newSession({ mode: "explore" });
    const w = await submit("Write", { file_path: "/workspace/a.txt", content: "x" }, explore);
    expect(w).toMatchObject({ status: "denied", decision: { mode: "explore" } });
    expect(w.result.content[0].text).toContain("explore mode is read-only");
    const r = await submit("Read", { file_path: "/workspace/a.txt" }, explore);
    expect(r.status).toBe("queued");
  });

  it("the dry run answers without recording; PATCH changes the mode", async () => {
    const res = await as(a.agentKey, "POST", `/v1/sessions/${sid}/decisions`, {
      tool: "Write",
      input: { file_path: "/workspace/a", content: "" },
    });
    expect(res.body.decision.behavior).toBe("ask");
    await as(a.agentKey, "PATCH", `/v1/sessions/${sid}`, { mode: "explore" });
    const again = await as(a.agentKey, "POST", `/v1/sessions/${sid}/decisions`, {
      tool: "Write",
      input: { file_path: "/workspace/a", content: "" },
    });
    expect(again.body.decision).toMatchObject({ behavior: "deny", mode: "explore" });
    const audit = await as(a.adminKey, "GET", `/v1/tenants/${a.tenantId}/audit`);
    expect(audit.body.entries).toEqual([]);
  });
});

describe("bypass is a tenant setting", () => {
  it("is refused (403) at creation and by PATCH until the tenant allows it", async () => {
    const res = await as(a.agentKey, "POST", "/v1/sessions", { mode: "bypass" });
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body.error.message).toContain("allowBypass");
    expect((await as(a.agentKey, "PATCH", `/v1/sessions/${sid}`, { mode: "bypass" })).status).toBe(403);
    expect((await settings({ allowBypass: true })).body.allowBypass).toBe(true);
    expect((await as(a.agentKey, "PATCH", `/v1/sessions/${sid}`, { mode: "bypass" })).body.mode).toBe(
      "bypass",
    );
    const job = await submit("Bash", { command: "npm test" });
    expect(job).toMatchObject({ status: "queued", decision: { mode: "bypass" } });
  });

  it("quotas are the platform admin's; a tenant admin may read them", async () => {
    const denied = await settings({ quotas: { maxSessions: 5000 } });
    expect(denied.status, JSON.stringify(denied.body)).toBe(403);
    const set = await settings({ quotas: { maxActiveCalls: 2 } }, ADMIN_KEY);
    expect(set.body).toMatchObject({ allowBypass: false, quotas: { maxActiveCalls: 2 } });
    const read = await as(a.adminKey, "GET", `/v1/tenants/${a.tenantId}/settings`);
    expect(read.body.quotas).toEqual({ maxActiveCalls: 2 });
  });
});

describe("working directories are bounded by the tenant (attack22a)", () => {
  it("an agent cannot make its home or / a working directory; accept_edits then asks for a write there", async () => {
    // The agent's own key sets its working directories, where accept_edits auto-allows writes: the
    // home's configuration changes what a narrowly allowed command runs.
    const write = { file_path: "/home/agent/.config/pip/pip.conf", content: "[global]\n" };
    for (const dirs of [["/"], ["/home/agent"], ["/workspace/../home"]]) {
      const res = await as(a.agentKey, "POST", "/v1/sessions", {
        mode: "accept_edits",
        workingDirectories: dirs,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toMatchObject({
        code: "VALIDATION",
        details: [{ path: "workingDirectories[0]" }],
      });
      expect(res.body.error.details[0].message).toContain("workingDirectoryRoots");
      const patch = await as(a.agentKey, "PATCH", `/v1/sessions/${sid}`, { workingDirectories: dirs });
      expect(patch.status, JSON.stringify(patch.body)).toBe(400);
    }
    const edits = await newSession({ mode: "accept_edits", workingDirectories: ["/tmp/scratch"] });
    expect(await submit("Write", write, edits)).toMatchObject({ status: "awaiting_approval" });
    expect(await submit("Write", { file_path: "/tmp/scratch/a.txt", content: "x" }, edits)).toMatchObject({
      status: "queued",
      decision: { behavior: "allow", decidedBy: "tool" },
    });

    // The tenant admin owns the bound: roots are normal absolute paths, shown by GET; an agent cannot set them.
    const bad = await settings({ workingDirectoryRoots: ["/ok", "relative"] });
    expect(bad.status, JSON.stringify(bad.body)).toBe(400);
    expect(bad.body.error.details[0].path).toBe("workingDirectoryRoots[1]");
    expect((await settings({ workingDirectoryRoots: ["/home/agent"] }, a.agentKey)).status).toBe(403);
    expect((await settings({ workingDirectoryRoots: ["/home/agent/"] })).body.workingDirectoryRoots).toEqual([
      "/home/agent",
    ]);
    const home = await newSession({ mode: "accept_edits", workingDirectories: ["/home/agent"] });
    expect(await submit("Write", write, home)).toMatchObject({
      status: "queued",
      decision: { behavior: "allow" },
    });
    // Narrowed again: the stored directory no longer lets the write through.
    await settings({ workingDirectoryRoots: null });
    const read = await as(a.adminKey, "GET", `/v1/tenants/${a.tenantId}/settings`);
    expect(read.body.workingDirectoryRoots).toEqual(["/workspace", "/tmp"]);
    expect(await submit("Write", write, home)).toMatchObject({ status: "awaiting_approval" });
  });

  it("the session view shows the stored directories and, apart, those the roots let count now", async () => {
    await settings({ workingDirectoryRoots: ["/workspace", "/tmp", "/home/agent"] });
    const dirs = ["/tmp/scratch", "/home/agent/proj"];
    const sid2 = await newSession({ mode: "accept_edits", workingDirectories: dirs });
    const view = async () => (await as(a.agentKey, "GET", `/v1/sessions/${sid2}`)).body;
    expect(await view()).toMatchObject({ workingDirectories: dirs, effectiveWorkingDirectories: dirs });
    // Narrowed: the stored list stays as set; the effective one drops what decisions now ignore.
    await settings({ workingDirectoryRoots: null });
    expect(await view()).toMatchObject({
      workingDirectories: dirs,
      effectiveWorkingDirectories: ["/tmp/scratch"],
    });
    const listed = await as(a.agentKey, "GET", "/v1/sessions?status=active");
    const item = listed.body.items.find((s: { id: string }) => s.id === sid2);
    expect(item).toMatchObject({ workingDirectories: dirs, effectiveWorkingDirectories: ["/tmp/scratch"] });
    const patched = await as(a.agentKey, "PATCH", `/v1/sessions/${sid2}`, { mode: "default" });
    expect(patched.body.effectiveWorkingDirectories).toEqual(["/tmp/scratch"]);
  });
});

describe("approvals", () => {
  it("an approval arriving twice is answered once (409)", async () => {
    const job = await submit("Bash", { command: "npm test" });
    const [one, two] = await Promise.all([
      approve(job.id, { approve: true }),
      approve(job.id, { approve: false }),
    ]);
    expect([one.status, two.status].sort()).toEqual([200, 409]);
    expect(t.bus.enqueued.length).toBeLessThanOrEqual(1);
  });

  it("agents answer only where the tenant allows it, and remember only suggested rules", async () => {
    const job = await submit("Bash", { command: "npm test" });
    expect((await approve(job.id, { approve: true }, a.agentKey)).status).toBe(403);
    await settings({ agentsMayApprove: true });
    const wide = await approve(job.id, { approve: true, remember: ["Bash"] }, a.agentKey);
    expect(wide.status, JSON.stringify(wide.body)).toBe(403);
    const ok = await approve(job.id, { approve: true, remember: ["Bash(npm test:*)"] }, a.agentKey);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it("an expired approval ends denied with a reason, on read and by the sweep; answering it is a 409", async () => {
    const job = await submit("Bash", { command: "npm test" });
    const later = new Date(Date.now() + 3601_000);
    await expireIfDue(t.deps, job.id, new Date()); // not due yet
    expect((await as(a.agentKey, "GET", `/v1/jobs/${job.id}`)).body.job.status).toBe("awaiting_approval");
    expect(await sweepExpiredApprovals(t.deps, later)).toBe(1);
    const got = (await as(a.agentKey, "GET", `/v1/jobs/${job.id}`)).body.job;
    expect(got).toMatchObject({ status: "denied", approvedBy: "expiry", decision: { behavior: "deny" } });
    expect(got.result.content[0].text).toContain("expired");
    expect((await approve(job.id, { approve: true })).status).toBe(409);
    const audit = await as(a.adminKey, "GET", `/v1/tenants/${a.tenantId}/audit?jobId=${job.id}`);
    expect(audit.body.entries[0]).toMatchObject({
      kind: "approval",
      actorKeyId: null,
      data: { approvedBy: "expiry" },
    });
  });

  it("the check on read expires a due approval with a short TTL", async () => {
    await settings({ approvalTtlSeconds: 10 });
    const job = await submit("Bash", { command: "npm test" });
    expect(Date.parse(job.approvalExpiresAt) - Date.parse(job.createdAt)).toBe(10_000);
    t.deps.db
      .update(jobs)
      .set({ approvalExpiresAt: new Date(0).toISOString() })
      .where(eq(jobs.id, job.id))
      .run();
    expect((await as(a.agentKey, "GET", `/v1/jobs/${job.id}`)).body.job.status).toBe("denied");
  });
});
