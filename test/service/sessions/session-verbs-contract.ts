/**
 * The session verbs of this folder on each dialect (session-verbs.test.ts on SQLite,
 * session-verbs.pg.int.test.ts on Postgres): a session row reads back the same (JSON columns as
 * values, flags as booleans), another tenant's session is a 404, the worker's writes (cwd,
 * active groups) land, and deleting a session cancels its pending calls, flags its running one,
 * drops its read cache and its sandbox (the writes go through `atomically`).
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TenantSettingsPatch } from "../../../src/contracts/tenant.js";
import { type Db, first, tablesOf } from "../../../src/db/db.js";
import type { JobStatus } from "../../../src/db/rows.js";
import type { JobStore } from "../../../src/db/store.js";
import { NotFoundError, ValidationError } from "../../../src/errors.js";
import { createLogger } from "../../../src/log.js";
import type { SandboxProvider } from "../../../src/sandbox/sandbox.js";
import { permissionContext } from "../../../src/service/calls/decide.js";
import { toolRegistry } from "../../../src/service/ports.js";
import { getToolGroups } from "../../../src/service/sessions/build-toolkit.js";
import { stdioServerTools } from "../../../src/service/sessions/mcp-clients.js";
import { sessionById } from "../../../src/service/sessions/session-row.js";
import {
  createSession,
  deleteSession,
  liveSessionIds,
  loadSession,
  setSessionCwd,
  toSessionView,
  updateSession,
} from "../../../src/service/sessions/sessions.js";
import { saveActiveGroups } from "../../../src/service/sessions/tool-list.js";
import { sessionWorkingDirectories } from "../../../src/service/sessions/working-directories.js";
import { putTenantSettings } from "../../../src/service/tenancy/tenant-settings.js";
import { runContext } from "../../../src/service/worker/execute-job.js";
import { MemoryBus } from "../../support/memory-bus.js";
import { jobRow, sessionRow } from "../../support/rows.js";

export interface VerbsFixture {
  db: Db;
  store: JobStore;
  close(): Promise<void>;
}

let n = 0;
const now = new Date().toISOString();

export function sessionVerbsContract(dialect: string, open: () => Promise<VerbsFixture>): void {
  describe(`session verbs (${dialect})`, () => {
    let f: VerbsFixture;
    let tenantId: string;
    let otherTenant: string;
    const sid = (name: string) => `ses_${name}_${tenantId}`;
    const jid = (name: string) => `job_${name}_${tenantId}`;
    const agent = () => ({ keyId: "key_a", role: "agent" as const, tenantId });

    beforeEach(async () => {
      f = await open();
      tenantId = `ten${process.pid}x${Date.now().toString(36)}x${n++}`;
      otherTenant = `${tenantId}o`;
      const { tenants } = tablesOf(f.db);
      await f.db.insert(tenants).values([
        { id: tenantId, name: "a", createdAt: now },
        { id: otherTenant, name: "b", createdAt: now },
      ]);
    });
    afterEach(() => f.close());

    async function seedSession(name: string, hostId: string | null = null) {
      const { sessions } = tablesOf(f.db);
      await f.db.insert(sessions).values(
        sessionRow({
          id: sid(name),
          tenantId,
          mode: "accept_edits",
          workingDirectories: ["/tmp/data"],
          rules: { allow: ["Read"], deny: [], ask: ["Bash(rm *)"] },
          tools: ["Read", "Bash"],
          activeGroups: [],
          hostId,
        }),
      );
      return sid(name);
    }

    async function seedJob(name: string, session: string, status: JobStatus) {
      const { jobs } = tablesOf(f.db);
      await f.db.insert(jobs).values(jobRow({ id: jid(name), tenantId, sessionId: session, status }));
    }

    async function seedReadCache(session: string, filePath: string) {
      const { readCache } = tablesOf(f.db);
      await f.db.insert(readCache).values({
        sessionId: session,
        filePath,
        lines: ["a"],
        mtimeMs: 1.5,
        contentHash: "h",
        sizeBytes: 1,
        updatedAt: now,
      });
    }

    /** The session now, and the contexts a decision and a run of it get (as the service builds them). */
    async function contexts(session: string) {
      const row = await loadSession(f.db, agent(), session);
      const workingDirectories = await sessionWorkingDirectories(f.db, row);
      const parts = {
        sandbox: {},
        readCache: {},
        signal: new AbortController().signal,
        workingDirectories,
      } as never;
      const run = runContext({ db: f.db } as never, { job: { decision: {} } as never, session: row }, parts);
      return { row, decision: await permissionContext(f.db, row), run };
    }

    const job = async (name: string) => {
      const { jobs } = tablesOf(f.db);
      return first(
        f.db
          .select()
          .from(jobs)
          .where(eq(jobs.id, jid(name)))
          .limit(1),
      );
    };

    it("reads a session back with its JSON columns and flags; another tenant's is a 404", async () => {
      const s = await seedSession("a", "h-1");
      const row = await loadSession(f.db, agent(), s);
      expect(row).toMatchObject({
        id: s,
        mode: "accept_edits",
        workingDirectories: ["/tmp/data"],
        rules: { allow: ["Read"], deny: [], ask: ["Bash(rm *)"] },
        tools: ["Read", "Bash"],
        toolGroups: null,
        activeGroups: [],
        hostId: "h-1",
        workspaceLost: false,
        nextSeq: 1,
      });
      expect(await sessionById(f.db, s)).toEqual(row);
      expect(await sessionById(f.db, sid("none"))).toBeUndefined();
      const other = { keyId: "key_b", role: "agent" as const, tenantId: otherTenant };
      await expect(loadSession(f.db, other, s)).rejects.toBeInstanceOf(NotFoundError);
      await expect(loadSession(f.db, agent(), sid("none"))).rejects.toBeInstanceOf(NotFoundError);
      expect(await liveSessionIds(f.db)).toContain(s);
    });

    it("sessions created at once never exceed the tenant's session quota", async () => {
      const deps = { db: f.db, tools: toolRegistry([]), quotas: { maxSessions: 2, callsPerMinute: 100 } };
      // Each create counts before any of them has written its row.
      const made = await Promise.allSettled([1, 2, 3, 4, 5].map(() => createSession(deps, agent(), {})));
      expect(made.filter((r) => r.status === "rejected").length).toBeGreaterThanOrEqual(3);
      const { sessions } = tablesOf(f.db);
      const rows = await f.db
        .select({ id: sessions.id })
        .from(sessions)
        .where(eq(sessions.tenantId, tenantId));
      expect(rows.length).toBeLessThanOrEqual(2);
    });

    it("two session updates at once each keep the field they set (no lost update)", async () => {
      const id = await seedSession("upd");
      const deps = { db: f.db, tools: toolRegistry([]) };
      // Both read the row before either writes: writing back the whole row would undo the other.
      await Promise.all([
        updateSession(deps, agent(), id, { mode: "explore" }),
        updateSession(deps, agent(), id, { workingDirectories: ["/tmp/srv"] }),
      ]);
      expect(await loadSession(f.db, agent(), id)).toMatchObject({
        mode: "explore",
        workingDirectories: ["/tmp/srv"],
      });
    });

    it("stores the worker's cwd and active groups; reads the tenant's tool groups", async () => {
      const s = await seedSession("w");
      await setSessionCwd(f.db, s, "/workspace/sub");
      await saveActiveGroups(f.db, s, ["research"]);
      expect(await loadSession(f.db, agent(), s)).toMatchObject({
        cwd: "/workspace/sub",
        activeGroups: ["research"],
      });
      expect(await getToolGroups(f.db, tenantId)).toEqual([]);
      const { toolGroups } = tablesOf(f.db);
      const groups = [{ name: "research", description: "d", tools: ["Grep"], skills: ["s"] }];
      await f.db.insert(toolGroups).values({ tenantId, groups, updatedAt: now });
      expect(await getToolGroups(f.db, tenantId)).toEqual(groups);
      // Without an MCP runtime (or for a session that is gone) a stdio listing is empty.
      expect(await stdioServerTools(undefined, { db: f.db } as never, s, "x")).toEqual([]);
    });

    it("a cwd in a working directory a PATCH took away is not where the session's next call starts (attack22c)", async () => {
      // The cwd is where accept_edits lets writes through: a `cd /data` kept while /data was a
      // working directory must not keep /data writable once the tenant removed it.
      const s = await seedSession("patched");
      await setSessionCwd(f.db, s, "/tmp/data/sub");
      const cwdOf = async () => {
        const { row, decision, run } = await contexts(s);
        return [decision.cwd, run.cwd, toSessionView(row, toolRegistry([]), []).cwd];
      };
      expect(await cwdOf()).toEqual(["/tmp/data/sub", "/tmp/data/sub", "/tmp/data/sub"]);
      await updateSession({ db: f.db, tools: toolRegistry([]) }, agent(), s, {
        workingDirectories: ["/tmp/srv"],
      });
      expect(await cwdOf()).toEqual(["/workspace", "/workspace", "/workspace"]);
      // Given back, the directory is the cwd again (the stored cwd is not rewritten).
      await updateSession({ db: f.db, tools: toolRegistry([]) }, agent(), s, {
        workingDirectories: ["/tmp/data/"],
      });
      expect(await cwdOf()).toEqual(["/tmp/data/sub", "/tmp/data/sub", "/tmp/data/sub"]);
    });

    it("working directories stay inside the tenant's roots: refused when set, ignored once the roots narrow", async () => {
      // accept_edits auto-allows writes inside the working directories, and the agent's own key
      // sets them: unbounded, `/` or the home made every write there auto-allowed (attack22a).
      const s = await seedSession("roots");
      const deps = { db: f.db, tools: toolRegistry([]) };
      const refused = async (dirs: string[]) => {
        const err = await updateSession(deps, agent(), s, { workingDirectories: dirs }).catch(
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ValidationError);
        return ((err as ValidationError).details ?? []).map((d) => d.path);
      };
      for (const outside of ["/", "/home/agent", "/home", "/workspace/../home/agent", "/tmpfoo", "/etc"]) {
        expect(await refused(["/tmp/ok", outside])).toEqual(["workingDirectories[1]"]);
      }
      const create = (dirs: string[]) =>
        createSession({ ...deps, quotas: {} } as never, agent(), { workingDirectories: dirs });
      await expect(create(["/home/agent"])).rejects.toBeInstanceOf(ValidationError);
      expect((await create(["/workspace/src", "/tmp/x/"])).workingDirectories).toEqual([
        "/workspace/src",
        "/tmp/x/",
      ]);

      // The tenant admin widens the roots: /data is allowed, and stays so until narrowed again.
      const admin = { keyId: "key_t", role: "tenant_admin" as const, tenantId };
      const settings = (patch: TenantSettingsPatch) =>
        putTenantSettings(
          { db: f.db, sandboxPolicy: {} as never, secrets: {} as never },
          admin,
          tenantId,
          patch,
        );
      expect(
        (await settings({ workingDirectoryRoots: ["/data/", "/workspace/../srv"] })).workingDirectoryRoots,
      ).toEqual(["/data", "/srv"]);
      expect(await refused(["/workspace"])).toEqual(["workingDirectories[0]"]);
      await updateSession(deps, agent(), s, { workingDirectories: ["/data/x", "/srv"] });
      await setSessionCwd(f.db, s, "/data/x/sub");
      const seen = async () => {
        const { decision, run } = await contexts(s);
        return {
          decision: [decision.workingDirectories, decision.cwd],
          run: [run.workingDirectories, run.cwd],
        };
      };
      expect(await seen()).toEqual({
        decision: [["/data/x", "/srv"], "/data/x/sub"],
        run: [["/data/x", "/srv"], "/data/x/sub"],
      });
      // Narrowed: the stored /data/x is ignored by decisions and runs (its cwd too), /srv kept.
      await settings({ workingDirectoryRoots: ["/srv"] });
      expect(await seen()).toEqual({ decision: [["/srv"], "/workspace"], run: [["/srv"], "/workspace"] });
      // Back to the default (null): /workspace and /tmp.
      expect((await settings({ workingDirectoryRoots: null })).workingDirectoryRoots).toEqual([
        "/workspace",
        "/tmp",
      ]);
      expect(await seen()).toEqual({ decision: [[], "/workspace"], run: [[], "/workspace"] });
    });

    it("deleting a session cancels pending calls, flags the running one, drops its cache and sandbox", async () => {
      const s = await seedSession("del", "h-1");
      const keep = await seedSession("keep");
      await seedJob("queued", s, "queued");
      await seedJob("held", s, "awaiting_approval");
      await seedJob("running", s, "running");
      await seedJob("done", s, "succeeded");
      await seedJob("other", keep, "queued");
      await seedReadCache(s, "/workspace/a");
      await seedReadCache(keep, "/workspace/a");
      const bus = new MemoryBus();
      const removed: string[] = [];
      const sandboxes = { remove: async (id: string) => void removed.push(id) } as unknown as SandboxProvider;
      const deps = {
        db: f.db,
        store: f.store,
        sandboxes,
        logger: createLogger("silent"),
        cancels: bus,
        events: bus,
      };

      // Another tenant's caller changes nothing.
      const other = { keyId: "key_b", role: "agent" as const, tenantId: otherTenant };
      await expect(deleteSession(deps, other, s)).rejects.toBeInstanceOf(NotFoundError);
      expect((await job("queued"))?.status).toBe("queued");

      await deleteSession(deps, agent(), s);
      await expect(loadSession(f.db, agent(), s)).rejects.toBeInstanceOf(NotFoundError);
      expect((await sessionById(f.db, s))?.status).toBe("deleted");
      for (const name of ["queued", "held"]) {
        const row = await job(name);
        expect(row).toMatchObject({ status: "cancelled", cancelRequested: true });
        expect(row?.finishedAt).toBeTruthy();
        // Followers learn that it ended.
        expect((await bus.read(jid(name))).length).toBeGreaterThan(0);
      }
      expect(await job("running")).toMatchObject({
        status: "running",
        cancelRequested: true,
        finishedAt: null,
      });
      expect(await job("done")).toMatchObject({ status: "succeeded", cancelRequested: false });
      expect(await job("other")).toMatchObject({ status: "queued", cancelRequested: false });
      expect(bus.cancelled).toEqual([jid("running")]);
      expect(removed).toEqual([s]);
      const { readCache } = tablesOf(f.db);
      const cached = await f.db
        .select({ sessionId: readCache.sessionId })
        .from(readCache)
        .where(eq(readCache.filePath, "/workspace/a"));
      expect(cached.map((r) => r.sessionId).filter((id) => id === s || id === keep)).toEqual([keep]);
      expect(await liveSessionIds(f.db)).not.toContain(s);
    });

    it("deleting a session cancels the jobs its writes changed, not the ones an earlier read saw", async () => {
      const s = await seedSession("race");
      await seedJob("claimed", s, "queued");
      const bus = new MemoryBus();
      // A worker claims `claimed` and a new call is queued after deleteSession could have read the
      // session's jobs, just before its transaction starts (the latest moment a read-then-write
      // can be outdated at).
      const { jobs } = tablesOf(f.db);
      const meanwhile = async () => {
        await f.db
          .update(jobs)
          .set({ status: "running" })
          .where(eq(jobs.id, jid("claimed")));
        await f.db.insert(jobs).values(jobRow({ id: jid("late"), tenantId, sessionId: s, status: "queued" }));
      };
      const deps = {
        db: beforeTransaction(f.db, meanwhile),
        store: f.store,
        sandboxes: { remove: async () => undefined } as unknown as SandboxProvider,
        logger: createLogger("silent"),
        cancels: bus,
        events: bus,
      };
      await deleteSession(deps, agent(), s);
      expect(await job("claimed")).toMatchObject({ status: "running", cancelRequested: true });
      // Its worker is told over the bus, so its command does not run on after the delete.
      expect(bus.cancelled).toEqual([jid("claimed")]);
      expect(await job("late")).toMatchObject({ status: "cancelled", cancelRequested: true });
      expect((await bus.read(jid("late"))).length).toBeGreaterThan(0);
      // The claimed job did not end: nothing tells its followers it did.
      expect(await bus.read(jid("claimed"))).toEqual([]);
    });
  });
}

/** `db`, whose first transaction starts only once `hook` has run (both dialects start one there). */
function beforeTransaction(db: Db, hook: () => Promise<void>): Db {
  let pending: (() => Promise<void>) | undefined = hook;
  return new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== "transaction" || typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const run = pending;
        pending = undefined;
        await run?.();
        return value.apply(target, args);
      };
    },
  });
}
