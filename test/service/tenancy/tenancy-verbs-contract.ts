/**
 * The tenancy and webhook verbs on each dialect (tenancy-verbs.test.ts on SQLite,
 * tenancy-verbs.pg.int.test.ts on Postgres): keys authenticate until revoked (the per-request
 * lookup runs a prepared statement on SQLite, a builder on Postgres), the configured admin key is
 * stored once when processes start together, settings read back as values (flags, JSON), quota
 * counts are numbers, a delivery is recorded once per (job, event), and pages follow the cursor.
 */
import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Db, tablesOf } from "../../../src/db/db.js";
import type { JobStatus } from "../../../src/db/rows.js";
import { ConflictError, NotFoundError, RateLimitedError, UnauthenticatedError } from "../../../src/errors.js";
import { createLogger } from "../../../src/log.js";
import { EgressPolicy } from "../../../src/net/egress-policy.js";
import { newJobRow } from "../../../src/service/calls/job-row.js";
import { SecretBox } from "../../../src/service/secret-box.js";
import {
  authenticate,
  createKey,
  ensureAdminKey,
  listKeys,
  revokeKey,
} from "../../../src/service/tenancy/api-keys.js";
import { ConsoleSessions } from "../../../src/service/tenancy/console-sessions.js";
import { KeyStreams } from "../../../src/service/tenancy/key-streams.js";
import { listTenant } from "../../../src/service/tenancy/list-scope.js";
import type { Principal } from "../../../src/service/tenancy/principal.js";
import { activeCallCount, checkSessionQuota } from "../../../src/service/tenancy/quotas.js";
import {
  effectiveMode,
  getTenantSettings,
  putTenantSettings,
  readSandboxSettings,
  readTenantSettings,
} from "../../../src/service/tenancy/tenant-settings.js";
import { createTenant, loadTenant } from "../../../src/service/tenancy/tenants.js";
import { listDeliveries } from "../../../src/service/webhooks/delivery-log.js";
import {
  recordWebhookEvents,
  requeuePendingDeliveries,
} from "../../../src/service/webhooks/record-events.js";
import {
  deleteWebhook,
  findWebhook,
  getWebhook,
  putWebhook,
  signingSecrets,
} from "../../../src/service/webhooks/webhook-config.js";
import { webhookSecretContext } from "../../../src/service/webhooks/webhook-events.js";
import { pollUntil } from "../../support/wait-for-job.js";

export interface TenancyFixture {
  db: Db;
  close(): Promise<void>;
}

export const admin: Principal = { keyId: "key_platform", role: "admin", tenantId: null };
export const sandboxPolicy = {
  defaultImage: "toolshed-sandbox:latest",
  imageAllowlist: [],
  caps: { memoryMb: 2048, cpus: 2, pids: 512, diskMb: 2048 },
};

export function tenancyVerbsContract(dialect: string, open: () => Promise<TenancyFixture>): void {
  describe(`tenancy and webhook verbs (${dialect})`, () => {
    let f: TenancyFixture;
    let deps: { db: Db };
    beforeEach(async () => {
      f = await open();
      deps = { db: f.db };
    });
    afterEach(() => f.close());

    it("keys authenticate until revoked; another tenant's key or tenant is a 404", async () => {
      const a = await createTenant(deps, admin, { name: "a" });
      const b = await createTenant(deps, admin, { name: "b" });
      const keyA = await createKey(deps, admin, a.id, { role: "tenant_admin" });
      const keyB = await createKey(deps, admin, b.id, { role: "agent", name: "bot" });
      const pA = await authenticate(deps, keyA.key);
      expect(pA).toEqual({ keyId: keyA.id, role: "tenant_admin", tenantId: a.id });
      await expect(loadTenant(deps, pA, b.id)).rejects.toThrow(NotFoundError);
      await expect(loadTenant(deps, admin, "ten_missing")).rejects.toThrow(NotFoundError);
      expect(await listTenant(f.db, pA, undefined)).toBe(a.id);
      expect(await listTenant(f.db, admin, b.id)).toBe(b.id);
      await expect(revokeKey(deps, pA, keyB.id)).rejects.toThrow(NotFoundError);
      expect(await listKeys(deps, admin, b.id)).toEqual([
        expect.objectContaining({ id: keyB.id, role: "agent", name: "bot", revokedAt: null }),
      ]);
      await revokeKey(deps, admin, keyB.id);
      await expect(authenticate(deps, keyB.key)).rejects.toThrow(UnauthenticatedError);
      expect((await listKeys(deps, admin, b.id))[0]!.revokedAt).toEqual(expect.any(String));
    });

    it("creates racing for the last live key of a tenant are never all kept (attack25a)", async () => {
      const a = await createTenant(deps, admin, { name: "a" });
      const bound = { ...deps, quotas: { maxApiKeys: 3 } };
      await createKey(bound, admin, a.id, { role: "agent" });
      await createKey(bound, admin, a.id, { role: "agent" });
      const race = await Promise.allSettled(
        [1, 2, 3, 4].map(() => createKey(bound, admin, a.id, { role: "agent" })),
      );
      expect(race.filter((r) => r.status === "fulfilled").length).toBeLessThanOrEqual(1);
      for (const r of race) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(ConflictError);
      const live = (await listKeys(deps, admin, a.id)).filter((k) => !k.revokedAt);
      expect(live.length).toBeLessThanOrEqual(3);
      // Every key listed is one some caller was given: a refused one was taken back.
      const given = new Set(race.flatMap((r) => (r.status === "fulfilled" ? [r.value.id] : [])));
      expect(live.filter((k) => !given.has(k.id))).toHaveLength(2);
    });

    it("the configured admin key is stored once when several processes start at the same time", async () => {
      const key = `configured-${randomBytes(8).toString("hex")}`;
      await Promise.all([1, 2, 3, 4].map(() => ensureAdminKey(deps, key)));
      const { apiKeys } = tablesOf(f.db);
      expect(await f.db.select().from(apiKeys)).toHaveLength(1);
      expect(await authenticate(deps, key)).toMatchObject({ role: "admin", tenantId: null });
      // A generated key is only made while no admin key is live.
      expect(await ensureAdminKey(deps, undefined)).toBeUndefined();
    });

    it("settings read back as values: flags, quotas (JSON) and the sandbox part", async () => {
      const t = await createTenant(deps, admin, { name: "s" });
      expect(await readTenantSettings(f.db, t.id)).toMatchObject({ allowBypass: false, quotas: {} });
      const secrets = SecretBox.fromKey(randomBytes(32));
      const put = await putTenantSettings({ db: f.db, sandboxPolicy, secrets }, admin, t.id, {
        allowBypass: true,
        quotas: { maxSessions: 1 },
        sandbox: { memoryMb: 512, env: { TOKEN: "s3cret" } },
      });
      expect(put).toMatchObject({ allowBypass: true, quotas: { maxSessions: 1 } });
      expect(put.sandbox).toMatchObject({ memoryMb: 512, env: ["TOKEN"] });
      const got = await getTenantSettings(deps, admin, t.id);
      expect(got).toEqual(put);
      expect(JSON.stringify(got)).not.toContain("s3cret");
      expect((await readSandboxSettings(f.db, t.id)).memoryMb).toBe(512);
      expect(await effectiveMode(f.db, { tenantId: t.id, mode: "bypass" })).toBe("bypass");
      await putTenantSettings({ db: f.db, sandboxPolicy, secrets }, admin, t.id, { allowBypass: false });
      expect(await effectiveMode(f.db, { tenantId: t.id, mode: "bypass" })).toBe("default");
      // Fields left out kept their value.
      expect((await readTenantSettings(f.db, t.id)).quotas).toEqual({ maxSessions: 1 });
    });

    it("two settings saves at once each keep the field they set (no lost update)", async () => {
      const t = await createTenant(deps, admin, { name: "r" });
      const d = { db: f.db, sandboxPolicy, secrets: SecretBox.fromKey(randomBytes(32)) };
      await putTenantSettings(d, admin, t.id, { approvalTtlSeconds: 60 });
      // Both read the stored row before either writes: a save of the whole row would undo the other.
      await Promise.all([
        putTenantSettings(d, admin, t.id, { allowBypass: true }),
        putTenantSettings(d, admin, t.id, { quotas: { maxSessions: 3 } }),
        putTenantSettings(d, admin, t.id, { sandbox: { memoryMb: 256 } }),
      ]);
      expect(await readTenantSettings(f.db, t.id)).toMatchObject({
        allowBypass: true,
        approvalTtlSeconds: 60,
        quotas: { maxSessions: 3 },
      });
      expect((await readSandboxSettings(f.db, t.id)).memoryMb).toBe(256);
    });

    it("quotas count active sessions and queued + running calls as numbers", async () => {
      const t = await createTenant(deps, admin, { name: "q" });
      const { sessions, jobs } = tablesOf(f.db);
      const now = new Date().toISOString();
      const session = (id: string, status: "active" | "deleted") => ({
        id,
        tenantId: t.id,
        status,
        mode: "default" as const,
        cwd: "/workspace",
        home: "/home/user",
        workingDirectories: [],
        rules: { allow: [], deny: [], ask: [] },
        tools: null,
        createdAt: now,
        lastUsedAt: now,
      });
      await f.db
        .insert(sessions)
        .values([session(`ses_1${t.id}`, "active"), session(`ses_2${t.id}`, "deleted")]);
      const quotaDeps = { db: f.db, quotas: { maxSessions: 2, callsPerMinute: 100 } };
      await checkSessionQuota(quotaDeps, t.id);
      await f.db.insert(sessions).values(session(`ses_3${t.id}`, "active"));
      await expect(checkSessionQuota(quotaDeps, t.id)).rejects.toThrow(RateLimitedError);
      const statuses: JobStatus[] = ["queued", "running", "succeeded", "awaiting_approval"];
      await f.db.insert(jobs).values(statuses.map((status, i) => job(t.id, `ses_1${t.id}`, i, status)));
      expect(await activeCallCount(f.db, t.id)).toBe(2);
    });

    it("a webhook save that keeps the secret does not undo a rotation made meanwhile", async () => {
      const t = await createTenant(deps, admin, { name: "h" });
      const secrets = SecretBox.fromKey(randomBytes(32));
      const hookDeps = { db: f.db, webhooks: { secrets, egress: new EgressPolicy() } };
      const url = "https://hooks.example.com/in";
      await putWebhook(hookDeps, admin, t.id, { url });
      // Both read the stored row before either writes.
      const [rotated] = await Promise.all([
        putWebhook(hookDeps, admin, t.id, { url, rotateSecret: true }),
        putWebhook(hookDeps, admin, t.id, { url: "https://hooks.example.com/other" }),
      ]);
      const stored = await findWebhook(f.db, t.id);
      expect(secrets.open<string>(stored!.secretEnc, webhookSecretContext(t.id))).toBe(rotated.secret);
    });

    it("a rotated-out secret signs beside the new one for its overlap, then not; 0 ends it at once", async () => {
      const t = await createTenant(deps, admin, { name: "r" });
      const secrets = SecretBox.fromKey(randomBytes(32));
      const hookDeps = { db: f.db, webhooks: { secrets, egress: new EgressPolicy() } };
      const open = (sealed: string) => secrets.open<string>(sealed, webhookSecretContext(t.id));
      const signing = async () => signingSecrets((await findWebhook(f.db, t.id))!, open);
      const url = "https://hooks.example.com/in";
      const first = await putWebhook(hookDeps, admin, t.id, { url });
      expect(first.previousSecretExpiresAt).toBeNull();
      expect(await signing()).toEqual([first.secret]);

      const before = Date.now();
      const second = await putWebhook(hookDeps, admin, t.id, { url, rotateSecret: true });
      expect(await signing()).toEqual([second.secret, first.secret]);
      const until = Date.parse(second.previousSecretExpiresAt!);
      expect(until - before).toBeGreaterThanOrEqual(86_400_000);
      expect(until - Date.now()).toBeLessThanOrEqual(86_400_000);
      // A save that keeps the secret keeps the overlap; the view says until when.
      await putWebhook(hookDeps, admin, t.id, { url: "https://hooks.example.com/moved" });
      expect(await signing()).toEqual([second.secret, first.secret]);
      expect((await getWebhook(deps, admin, t.id)).previousSecretExpiresAt).toBe(
        second.previousSecretExpiresAt,
      );

      // Two rotations at once: the secret stored when the second writes (the first's) still signs.
      const [a, b] = await Promise.all([
        putWebhook(hookDeps, admin, t.id, { url, rotateSecret: true }),
        putWebhook(hookDeps, admin, t.id, { url, rotateSecret: true }),
      ]);
      const now = await signing();
      expect(now).toHaveLength(2);
      expect([a.secret, b.secret]).toContain(now[0]);
      expect([a.secret, b.secret]).toContain(now[1]);

      // Its overlap over, the previous secret no longer signs and the view says none.
      const { webhooks } = tablesOf(f.db);
      await f.db.update(webhooks).set({ previousSecretUntil: new Date(Date.now() - 1000).toISOString() });
      expect(await signing()).toEqual([now[0]]);
      expect((await getWebhook(deps, admin, t.id)).previousSecretExpiresAt).toBeNull();

      // A leaked secret: rotated with no overlap, only the new one signs.
      await putWebhook(hookDeps, admin, t.id, { url, rotateSecret: true });
      const leaked = await putWebhook(hookDeps, admin, t.id, {
        url,
        rotateSecret: true,
        keepPreviousSecretSeconds: 0,
      });
      expect(await signing()).toEqual([leaked.secret]);
      expect(leaked.previousSecretExpiresAt).toBeNull();
    });

    it("a delivery is recorded once per job and event; deliveries page newest first", async () => {
      const t = await createTenant(deps, admin, { name: "w" });
      const secrets = SecretBox.fromKey(randomBytes(32));
      const hookDeps = { db: f.db, webhooks: { secrets, egress: new EgressPolicy() } };
      const created = await putWebhook(hookDeps, admin, t.id, {
        url: "https://hooks.example.com/in",
        events: ["job.finished"],
      });
      expect(created.secret).toMatch(/^whsec_/);
      expect(await getWebhook(deps, admin, t.id)).toEqual({
        url: "https://hooks.example.com/in",
        events: ["job.finished"],
        createdAt: created.createdAt,
        updatedAt: created.updatedAt,
        previousSecretExpiresAt: null,
      });
      const queued: string[] = [];
      const recordDeps = {
        db: f.db,
        logger: createLogger("silent"),
        webhooks: { queue: { enqueue: async (id: string) => void queued.push(id) } },
      };
      const rows = [0, 1, 2].map((i) => job(t.id, "ses_x", i, "succeeded"));
      for (const row of rows) await recordWebhookEvents(recordDeps, row);
      await recordWebhookEvents(recordDeps, rows[0]!);
      // Not subscribed: nothing recorded.
      await recordWebhookEvents(recordDeps, job(t.id, "ses_x", 9, "awaiting_approval"));
      expect(queued).toHaveLength(3);
      const first = await listDeliveries(deps, admin, t.id, { limit: 2 });
      expect(first.items).toHaveLength(2);
      expect(first.nextCursor).not.toBeNull();
      const rest = await listDeliveries(deps, admin, t.id, { limit: 2, cursor: first.nextCursor! });
      const ids = [...first.items, ...rest.items].map((d) => d.id);
      expect(rest.nextCursor).toBeNull();
      expect(new Set(ids)).toEqual(new Set(queued));
      const byJob = await listDeliveries(deps, admin, t.id, { jobId: rows[1]!.id, status: "pending" });
      expect(byJob.items.map((d) => d.jobId)).toEqual([rows[1]!.id]);
      expect(
        await requeuePendingDeliveries({ db: f.db, webhooks: recordDeps.webhooks }),
      ).toBeGreaterThanOrEqual(3);
      await deleteWebhook(deps, admin, t.id);
      await expect(deleteWebhook(deps, admin, t.id)).rejects.toThrow(NotFoundError);
      await expect(getWebhook(deps, admin, t.id)).rejects.toThrow(NotFoundError);
    });

    it("a console session and a tracked stream end when their key is revoked", async () => {
      const t = await createTenant(deps, admin, { name: "c" });
      const key = await createKey(deps, admin, t.id, { role: "tenant_admin" });
      const consoles = new ConsoleSessions(f.db, randomBytes(32));
      const session = await consoles.signIn(key.key);
      expect((await consoles.resume(session.token)).principal.keyId).toBe(key.id);
      // Another process revoked it: this one's stream ends at its next check.
      const streams = new KeyStreams(f.db, 20);
      let ended = false;
      const untrack = streams.track(key.id, () => {
        ended = true;
      });
      await revokeKey(deps, admin, key.id);
      await pollUntil(
        () => ended,
        (e) => e,
        { timeoutMs: 5000, what: "the stream to end" },
      );
      untrack();
      streams.close();
      await expect(consoles.resume(session.token)).rejects.toThrow(/revoked/);
    });
  });
}

function job(tenantId: string, sessionId: string, i: number, status: JobStatus) {
  const decision = {
    behavior: "allow" as const,
    message: "",
    reason: "mode",
    mode: "default" as const,
    bypassImmune: false,
    suggestions: [],
    decidedBy: "mode" as const,
  };
  return newJobRow({
    id: `job_${i}_${tenantId}`,
    tenantId,
    sessionId,
    tool: "Bash",
    input: { command: "true" },
    status,
    decision,
    concurrencySafe: false,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  });
}
