/**
 * The approvals stream's idle re-read: a change that came without a notice (Redis away, a row
 * changed by another path) is still announced after the idle interval, in both directions.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jobs } from "../../src/db/schema.js";
import { followApprovals } from "../../src/service/calls/follow-approvals.js";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
});
afterEach(() => t.close());

describe("followApprovals", () => {
  it("re-reads the database when idle: a job resolved without a notice is still sent as resolved", async () => {
    const a = await seedTenant(t.call);
    await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, {
      key: a.adminKey,
      body: { allow: [], deny: [], ask: ["Bash(touch:*)"] },
    });
    const sid = (await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} })).body.id;
    const ask = async (f: string) =>
      (
        await t.call("POST", `/v1/sessions/${sid}/calls`, {
          key: a.agentKey,
          body: { tool: "Bash", input: { command: `touch ${f}` } },
        })
      ).body.job.id as string;
    const first = await ask("one");
    const principal = { keyId: "key_x", role: "tenant_admin" as const, tenantId: a.tenantId };
    const follower = await followApprovals(t.deps, principal, {}, { idleMs: 50 });
    const it = follower[Symbol.asyncIterator]();
    try {
      expect((await it.next()).value).toMatchObject({ type: "approval", data: { job: { id: first } } });
      // This change bypasses publishState: no notice is sent for it.
      t.deps.db.update(jobs).set({ status: "cancelled" }).where(eq(jobs.id, first)).run();
      // A new approval, with its notice: it comes at once; the silent resolve after the idle re-read.
      const second = await ask("two");
      const seen = [(await it.next()).value, (await it.next()).value, (await it.next()).value].filter(
        (e) => e.type !== "ping",
      );
      expect(seen).toContainEqual({ type: "resolved", data: { jobId: first, status: "cancelled" } });
      expect(seen).toContainEqual(
        expect.objectContaining({
          type: "approval",
          data: expect.objectContaining({ job: expect.objectContaining({ id: second }) }),
        }),
      );
    } finally {
      follower.close();
    }
  });
});
