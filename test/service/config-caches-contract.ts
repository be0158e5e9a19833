/**
 * The per-call configuration reads served from this process's caches, on each dialect
 * (config-caches.test.ts on SQLite, config-caches.pg.int.test.ts on Postgres). Two handles on
 * one database stand for two processes (`a` this one, `b` another): a write here is read here
 * at once; a write in the other process is read here only once the cache's TTL has passed (the
 * cached value is kept until then, which is what shows that it is a cache hit). The switches that relax a tenant's safety
 * are read now, whatever the cache holds.
 */
import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Db } from "../../src/db/db.js";
import type { JobRow } from "../../src/db/rows.js";
import { createLogger } from "../../src/log.js";
import { EgressPolicy } from "../../src/net/egress-policy.js";
import { newJobRow } from "../../src/service/calls/job-row.js";
import { SecretBox } from "../../src/service/secret-box.js";
import { effectiveQuotas } from "../../src/service/tenancy/quotas.js";
import {
  effectiveMode,
  putTenantSettings,
  readSandboxSettings,
  readTenantSettings,
  readTenantSettingsNow,
} from "../../src/service/tenancy/tenant-settings.js";
import { createTenant } from "../../src/service/tenancy/tenants.js";
import { CONFIG_TTL_MS } from "../../src/service/tenant-read-cache.js";
import {
  createMcpServer,
  deleteMcpServer,
  loadMcpServerConfigs,
} from "../../src/service/tool-config/mcp-servers.js";
import { recordWebhookEvents } from "../../src/service/webhooks/record-events.js";
import {
  deleteWebhook,
  findWebhook,
  putWebhook,
  subscribedWebhook,
} from "../../src/service/webhooks/webhook-config.js";
import type { TwoHandles } from "../support/two-handles.js";
import { admin, sandboxPolicy } from "./tenancy/tenancy-verbs-contract.js";

const quotaDefaults = { maxSessions: 10, callsPerMinute: 600 };

export function configCachesContract(dialect: string, open: () => Promise<TwoHandles>): void {
  describe(`per-call configuration from this process's caches (${dialect})`, () => {
    let f: TwoHandles;
    let tenantId: string;
    const secrets = SecretBox.fromKey(randomBytes(32));
    const settings = (db: Db) => ({ db, sandboxPolicy, secrets });
    /** Past the TTL of everything cached so far. */
    const ttlPasses = () => vi.setSystemTime(Date.now() + CONFIG_TTL_MS);

    beforeEach(async () => {
      f = await open();
      tenantId = (await createTenant({ db: f.a }, admin, { name: "cached" })).id;
      // Only Date is faked (the drivers' timers run), frozen until a test moves it.
      vi.useFakeTimers({ toFake: ["Date"] });
    });
    afterEach(async () => {
      vi.useRealTimers();
      await f.close();
    });

    it("tenant settings: quotas, approval TTL and sandbox settings", async () => {
      const read = async () => ({
        quotas: await effectiveQuotas({ db: f.a, quotas: quotaDefaults }, tenantId),
        ttl: (await readTenantSettings(f.a, tenantId)).approvalTtlSeconds,
        memoryMb: (await readSandboxSettings(f.a, tenantId)).memoryMb,
      });
      const before = await read();
      expect(before).toMatchObject({ quotas: { maxSessions: 10 }, ttl: 3600, memoryMb: undefined });
      await putTenantSettings(settings(f.b), admin, tenantId, {
        quotas: { maxSessions: 2 },
        approvalTtlSeconds: 60,
        sandbox: { memoryMb: 512 },
      });
      // Another process's change: the cached row until the TTL has passed.
      vi.setSystemTime(Date.now() + CONFIG_TTL_MS - 1);
      expect(await read()).toEqual(before);
      vi.setSystemTime(Date.now() + 1);
      expect(await read()).toMatchObject({ quotas: { maxSessions: 2 }, ttl: 60, memoryMb: 512 });
      // This process's change: read at once.
      await putTenantSettings(settings(f.a), admin, tenantId, {
        approvalTtlSeconds: 90,
        sandbox: { memoryMb: 256 },
      });
      expect(await read()).toMatchObject({ quotas: { maxSessions: 2 }, ttl: 90, memoryMb: 256 });
    });

    it("the switches that relax the tenant's safety are read now, not from the cache", async () => {
      const session = { tenantId, mode: "bypass" as const };
      expect(await readTenantSettings(f.a, tenantId)).toMatchObject({ allowBypass: false });
      expect(await effectiveMode(f.a, session)).toBe("default");
      await putTenantSettings(settings(f.b), admin, tenantId, {
        allowBypass: true,
        agentsMayApprove: true,
      });
      expect(await effectiveMode(f.a, session)).toBe("bypass");
      expect(await readTenantSettingsNow(f.a, tenantId)).toMatchObject({ agentsMayApprove: true });
      // Turned off in the other process: off here at once, though the cache still says on.
      ttlPasses();
      expect(await readTenantSettings(f.a, tenantId)).toMatchObject({ allowBypass: true });
      await putTenantSettings(settings(f.b), admin, tenantId, {
        allowBypass: false,
        agentsMayApprove: false,
      });
      expect(await readTenantSettings(f.a, tenantId)).toMatchObject({ allowBypass: true });
      expect(await effectiveMode(f.a, session)).toBe("default");
      expect(await readTenantSettingsNow(f.a, tenantId)).toMatchObject({ agentsMayApprove: false });
    });

    it("the MCP server list the toolkit reads, with its secrets opened", async () => {
      const deps = (db: Db) => ({ db, secrets, egress: new EgressPolicy() });
      const names = async () => (await loadMcpServerConfigs(deps(f.a), tenantId)).map((s) => s.config.name);
      expect(await names()).toEqual([]);
      await createMcpServer(deps(f.b), admin, tenantId, {
        name: "docs",
        transport: "http",
        url: "https://mcp.example.com/docs",
        headers: { authorization: "Bearer t0ken" },
      });
      expect(await names()).toEqual([]);
      ttlPasses();
      const [docs] = await loadMcpServerConfigs(deps(f.a), tenantId);
      expect(docs!.config).toMatchObject({ name: "docs", headers: { authorization: "Bearer t0ken" } });
      await createMcpServer(deps(f.a), admin, tenantId, {
        name: "local",
        transport: "stdio",
        command: "node",
        args: ["server.js"],
      });
      expect(await names()).toEqual(["docs", "local"]);
      // Each read gets its own lists: a caller that changes one does not change the cached row.
      const first = await loadMcpServerConfigs(deps(f.a), tenantId);
      (first[1]!.config as { args: string[] }).args.push("--changed");
      const again = await loadMcpServerConfigs(deps(f.a), tenantId);
      expect(again[1]!.config).toMatchObject({ args: ["server.js"] });
      await deleteMcpServer(deps(f.a), admin, tenantId, "docs");
      expect(await names()).toEqual(["local"]);
    });

    it("the webhook: one saved here gets the next event at once; one saved elsewhere within the TTL", async () => {
      const hookDeps = (db: Db) => ({ db, webhooks: { secrets, egress: new EgressPolicy() } });
      const queued: string[] = [];
      const record = (row: JobRow) =>
        recordWebhookEvents(
          {
            db: f.a,
            logger: createLogger("silent"),
            webhooks: { queue: { enqueue: async (id: string) => void queued.push(id) } },
          },
          row,
        );
      await record(finished(tenantId, 1));
      expect(queued).toHaveLength(0);
      await putWebhook(hookDeps(f.a), admin, tenantId, { url: "https://hooks.example.com/a" });
      await record(finished(tenantId, 2));
      expect(queued).toHaveLength(1);
      // Removed in another process: this one still records until the TTL has passed (the
      // delivery reads the row again, finds none and sends nothing).
      await deleteWebhook({ db: f.b }, admin, tenantId);
      expect(await findWebhook(f.a, tenantId)).toBeUndefined();
      await record(finished(tenantId, 3));
      expect(queued).toHaveLength(2);
      ttlPasses();
      await record(finished(tenantId, 4));
      expect(queued).toHaveLength(2);
      // Saved in another process: seen here once the TTL has passed.
      await putWebhook(hookDeps(f.b), admin, tenantId, { url: "https://hooks.example.com/b" });
      expect(await subscribedWebhook(f.a, tenantId)).toBeUndefined();
      ttlPasses();
      expect((await subscribedWebhook(f.a, tenantId))?.url).toBe("https://hooks.example.com/b");
      // Removed here: no more events here at once.
      await deleteWebhook({ db: f.a }, admin, tenantId);
      await record(finished(tenantId, 5));
      expect(queued).toHaveLength(2);
    });
  });
}

function finished(tenantId: string, i: number): JobRow {
  return newJobRow({
    id: `job_${i}_${tenantId}`,
    tenantId,
    sessionId: "ses_x",
    tool: "Bash",
    input: { command: "true" },
    status: "succeeded",
    decision: {
      behavior: "allow",
      message: "",
      reason: "mode",
      mode: "default",
      bypassImmune: false,
      suggestions: [],
      decidedBy: "mode",
    },
    concurrencySafe: false,
  });
}
