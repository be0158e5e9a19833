/**
 * The audit trail is newest first on both dialects without SQLite's rowid: entries written in one
 * millisecond come back in the reverse of the order they were written, because audit ids rise.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { listAudit, writeAudit } from "../../../src/service/calls/audit.js";
import { newId } from "../../../src/service/ids.js";
import { createApiTestApp, seedTenant } from "../../support/harness.js";
import { NullSandboxProvider } from "../../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
});
afterEach(() => {
  vi.useRealTimers();
  t.close();
});

describe("audit order", () => {
  it("audit ids rise within one millisecond; other ids stay random", () => {
    vi.useFakeTimers({ now: Date.parse("2026-06-01T00:00:00Z"), toFake: ["Date"] });
    const ids = Array.from({ length: 500 }, () => newId("aud"));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^aud_[0-9a-z]{20}$/.test(id))).toBe(true);
    const jobs = Array.from({ length: 50 }, () => newId("job"));
    expect([...jobs].sort()).not.toEqual(jobs);
  });

  it("entries of the same millisecond are listed newest first, in the order they were written", async () => {
    const a = await seedTenant(t.call);
    const admin = { keyId: "key_admin", role: "tenant_admin" as const, tenantId: a.tenantId };
    vi.useFakeTimers({ now: Date.parse("2026-06-01T00:00:00Z"), toFake: ["Date"] });
    const kinds = ["decision", "approval", "attempt", "external_result"] as const;
    for (const [i, kind] of kinds.entries()) {
      await writeAudit(t.deps.db, {
        tenantId: a.tenantId,
        sessionId: "ses_x",
        jobId: "job_x",
        kind,
        actorKeyId: null,
        data: { i },
      });
    }
    vi.useRealTimers();
    const entries = await listAudit(t.deps, admin, a.tenantId, { jobId: "job_x" });
    expect(new Set(entries.map((e) => e.createdAt)).size).toBe(1);
    expect(entries.map((e) => e.kind)).toEqual([...kinds].reverse());
  });
});
