/**
 * The JobStore contract, run on each dialect (store.sqlite.test.ts, store.pg.int.test.ts). A
 * fixture gives two stores over the same database (two connections: two processes' view) and
 * a few reads the port does not offer. Races start every contender before awaiting any.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JobRow, JobStatus, RuleStrings } from "../../src/db/schema.js";
import {
  ActiveCallsFull,
  type ApprovalOutcome,
  type AuditRecord,
  type JobStore,
} from "../../src/db/store.js";
import type { ReadCacheStore } from "../../src/toolkit/read-cache.js";
import { jobRow as newJobRow } from "../support/rows.js";

export interface StoreFixture {
  store: JobStore;
  /** A second connection to the same database. */
  other: JobStore;
  /** A new tenant and active session; returns their ids. */
  seedSession(): Promise<{ tenantId: string; sessionId: string }>;
  session(id: string): Promise<{ nextSeq: number; rules: RuleStrings }>;
  /** Pins the session to a worker host (as placement does). */
  pin(sessionId: string, hostId: string): Promise<void>;
  /** Marks the session deleted (as its delete does first). */
  retire(sessionId: string): Promise<void>;
  auditKinds(jobId: string): Promise<string[]>;
  /** The session read cache over the store's database. */
  readCache: ReadCacheStore;
  close(): Promise<void>;
}

let n = 0;
const id = (p: string) => `${p}_${process.pid}_${Date.now().toString(36)}_${n++}`;

function jobRow(s: { tenantId: string; sessionId: string }, over: Partial<JobRow> = {}): JobRow {
  return newJobRow({ id: id("job"), tenantId: s.tenantId, sessionId: s.sessionId, ...over });
}

const decisionAudit = (row: JobRow): AuditRecord => ({
  tenantId: row.tenantId,
  sessionId: row.sessionId,
  jobId: row.id,
  kind: "decision",
  actorKeyId: null,
  data: { status: row.status },
});

const ok = (text: string) => ({ content: [{ type: "text" as const, text }], state: "success" as const });
const W1 = { worker: "host-a/1/x", takeOver: false };
const W2 = { worker: "host-b/2/y", takeOver: false };

export function storeContract(
  dialect: string,
  /**
   * `recordsHostId`: whether this dialect's schema has `jobs.host_id` yet. `exactLaterCalls`:
   * whether a finish says `laterCalls: false` when no call was queued after it (else always true).
   */
  opts: { recordsHostId: boolean; exactLaterCalls: boolean },
  open: () => Promise<StoreFixture>,
): void {
  describe(`JobStore contract (${dialect})`, () => {
    let f: StoreFixture;
    let s: { tenantId: string; sessionId: string };
    beforeEach(async () => {
      f = await open();
      s = await f.seedSession();
    });
    afterEach(() => f.close());

    const submit = async (store: JobStore, over: Partial<JobRow> = {}) => {
      const row = jobRow(s, over);
      const dup = await store.insertJob(row, decisionAudit(row));
      return dup ?? row;
    };

    describe("sequence + insert", () => {
      it("gives queued jobs the session's next seq, and others none", async () => {
        const a = await submit(f.store);
        const asked = await submit(f.store, { status: "awaiting_approval" });
        const b = await submit(f.store);
        expect([a.seq, asked.seq, b.seq]).toEqual([1, null, 2]);
        expect((await f.store.findJob(asked.id))?.seq).toBeNull();
        expect((await f.session(s.sessionId)).nextSeq).toBe(3);
        expect(await f.auditKinds(a.id)).toEqual(["decision"]);
      });

      it("numbers concurrent submits of a session uniquely and without gaps", async () => {
        const rows = await Promise.all(
          Array.from({ length: 24 }, (_, i) => submit(i % 2 === 0 ? f.store : f.other)),
        );
        const seqs = (await Promise.all(rows.map((r) => f.store.findJob(r.id)))).map((r) => r?.seq);
        expect([...seqs].sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual(
          Array.from({ length: 24 }, (_, i) => i + 1),
        );
        expect((await f.session(s.sessionId)).nextSeq).toBe(25);
      });

      it("keeps one job per idempotency key, even when two connections race", async () => {
        const [x, y] = await Promise.all([
          submit(f.store, { idempotencyKey: "k1" }),
          submit(f.other, { idempotencyKey: "k1" }),
        ]);
        expect(x.id).toBe(y.id);
        const again = await submit(f.store, { idempotencyKey: "k1" });
        expect(again.id).toBe(x.id);
        const next = await submit(f.store);
        // The losers took no number: the sequence has no hole.
        expect(next.seq).toBe(2);
      });

      it("holds a tenant to its bound on queued + running jobs when two connections race", async () => {
        const bound = 3;
        const rows = Array.from({ length: 10 }, () => jobRow(s));
        const outcomes = await Promise.allSettled(
          rows.map((row, i) =>
            (i % 2 === 0 ? f.store : f.other).insertJob(row, decisionAudit(row), { maxActive: bound }),
          ),
        );
        expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(bound);
        for (const o of outcomes.filter((x) => x.status === "rejected")) {
          expect(o.reason).toBeInstanceOf(ActiveCallsFull);
        }
        const stored = (await Promise.all(rows.map((r) => f.store.findJob(r.id)))).filter((r) => r);
        expect(stored).toHaveLength(bound);
        // A refused insert wrote nothing and took no number: the winners hold 1..bound.
        expect(stored.map((r) => r?.seq).sort()).toEqual([1, 2, 3]);
        expect((await f.session(s.sessionId)).nextSeq).toBe(bound + 1);
        const refused = rows.find((r) => !stored.some((x) => x?.id === r.id))!;
        expect(await f.auditKinds(refused.id)).toEqual([]);
      });

      it("answers a racing idempotent repeat with the job that took the last slot", async () => {
        const rows = [jobRow(s, { idempotencyKey: "k3" }), jobRow(s, { idempotencyKey: "k3" })];
        const [x, y] = await Promise.all(
          rows.map(async (row, i) => {
            const dup = await (i ? f.other : f.store).insertJob(row, decisionAudit(row), { maxActive: 1 });
            return dup ?? row;
          }),
        );
        expect(x?.id).toBe(y?.id);
      });

      it("counts running jobs against the bound; slotless statuses and other tenants pass", async () => {
        const a = await submit(f.store);
        await f.store.claim(a.id, W1);
        await submit(f.store);
        const over = jobRow(s);
        await expect(f.other.insertJob(over, decisionAudit(over), { maxActive: 2 })).rejects.toBeInstanceOf(
          ActiveCallsFull,
        );
        for (const status of ["awaiting_approval", "awaiting_external", "denied"] as const) {
          const row = jobRow(s, { status });
          expect(await f.other.insertJob(row, decisionAudit(row), { maxActive: 2 })).toBeUndefined();
        }
        const elsewhere = jobRow(await f.seedSession());
        expect(
          await f.other.insertJob(elsewhere, decisionAudit(elsewhere), { maxActive: 2 }),
        ).toBeUndefined();
        // A finished job frees its slot; an idempotent repeat returns its job even at the bound.
        await f.store.finish(a.id, "succeeded", ok("done"));
        const keyed = jobRow(s, { idempotencyKey: "k2" });
        expect(await f.other.insertJob(keyed, decisionAudit(keyed), { maxActive: 2 })).toBeUndefined();
        const again = jobRow(s, { idempotencyKey: "k2" });
        expect((await f.store.insertJob(again, decisionAudit(again), { maxActive: 2 }))?.id).toBe(keyed.id);
      });

      it("withdraws a queued job and its audit entry", async () => {
        const a = await submit(f.store);
        expect(await f.store.withdrawQueued(a.id)).toBe(true);
        expect(await f.store.findJob(a.id)).toBeUndefined();
        expect(await f.auditKinds(a.id)).toEqual([]);
        expect(await f.store.withdrawQueued(a.id)).toBe(false);
      });
    });

    describe("claim", () => {
      it("lets exactly one of two racing claimers run a queued job", async () => {
        const a = await submit(f.store);
        const claims = await Promise.all([f.store.claim(a.id, W1), f.other.claim(a.id, W2)]);
        expect(claims.map((c) => c.kind).sort()).toEqual(["run", "skip"]);
        const row = await f.store.findJob(a.id);
        expect(row?.status).toBe("running");
        expect(row?.runs).toBe(1);
        expect(row?.attempts).toHaveLength(1);
        const winner = claims.find((c) => c.kind === "run");
        expect(winner?.kind === "run" && winner.job.attempts?.[0]?.worker).toBe(row?.attempts?.[0]?.worker);
      });

      it.skipIf(!opts.recordsHostId)("records the claimer's host on the job", async () => {
        const a = await submit(f.store);
        const c = await f.store.claim(a.id, { ...W1, hostId: "host-a" });
        expect(c.kind === "run" && (c.job as { hostId?: string }).hostId).toBe("host-a");
        expect(((await f.store.findJob(a.id)) as { hostId?: string } | undefined)?.hostId).toBe("host-a");
      });

      it("an insert claims its own row (insertClaimed) only where the session is pinned", async () => {
        // The executor instance the run will likely use is recorded on its attempt up front.
        const claim = { worker: W1.worker, hostId: "host-a", sandbox: "boot-1" };
        const put = async (over: Partial<JobRow> = {}) => {
          const row = jobRow(s, over);
          return { row, out: await f.store.insertClaimed(row, decisionAudit(row), { claim }) };
        };
        // Not pinned yet (placement has not run), then pinned elsewhere: stored queued, unclaimed.
        const a = await put();
        expect(a.out).toEqual({ kind: "stored", claim: { kind: "skip", reason: "elsewhere" } });
        await f.pin(s.sessionId, "host-b");
        const b = await put();
        expect(b.out).toEqual({ kind: "stored", claim: { kind: "skip", reason: "elsewhere" } });
        expect((await f.store.findJob(b.row.id))?.status).toBe("queued");
        // Pinned here, but earlier calls of the session are still queued: it waits its turn.
        await f.pin(s.sessionId, "host-a");
        const c = await put();
        expect(c.out).toEqual({ kind: "stored", claim: { kind: "wait", blockedBy: expect.any(String) } });
        for (const earlier of [a, b, c]) await f.store.finish(earlier.row.id, "succeeded", ok("done"));
        const d = await put();
        expect(d.out.kind === "stored" && d.out.claim.kind).toBe("run");
        const stored = await f.store.findJob(d.row.id);
        expect(stored).toMatchObject({ status: "running", runs: 1, seq: 4 });
        expect(stored?.attempts?.map((x) => [x.n, x.worker, x.sandbox, x.endedAt])).toEqual([
          [1, W1.worker, "boot-1", undefined],
        ]);
        expect(d.out.kind === "stored" && d.out.claim.kind === "run" && d.out.claim.job.id).toBe(d.row.id);
        expect(await f.auditKinds(d.row.id)).toEqual(["decision"]);
        // It is running: another claimer (not taking over) skips it.
        expect(await f.other.claim(d.row.id, W2)).toEqual({ kind: "skip", reason: "running" });
        // A safe call is not held back by a running safe one; an unsafe one is.
        const safe1 = await put({ concurrencySafe: true });
        await f.store.finish(d.row.id, "succeeded", ok("done"));
        expect(safe1.out.kind === "stored" && safe1.out.claim.kind).toBe("wait");
        await f.store.finish(safe1.row.id, "succeeded", ok("done"));
        const safe2 = await put({ concurrencySafe: true });
        const safe3 = await put({ concurrencySafe: true });
        expect(safe2.out.kind === "stored" && safe2.out.claim.kind).toBe("run");
        expect(safe3.out.kind === "stored" && safe3.out.claim.kind).toBe("run");
        expect((await put()).out).toEqual({
          kind: "stored",
          claim: { kind: "wait", blockedBy: expect.any(String) },
        });
      });

      it("insertFinished stores a call that ran, final, only while nothing could have ordered it otherwise", async () => {
        await f.pin(s.sessionId, "host-a");
        const nextSeq = async () => (await f.session(s.sessionId)).nextSeq;
        const cached = (text: string) => ({
          sessionId: s.sessionId,
          entries: [
            {
              filePath: `/workspace/${text}`,
              lines: [text],
              mtimeMs: 1,
              contentHash: text.padEnd(64, "0"),
              sizeBytes: 1,
            },
          ],
        });
        const ran = (over: Partial<JobRow> = {}) => {
          const now = new Date().toISOString();
          const attempts = [{ n: 1, worker: W1.worker, startedAt: now, endedAt: now, outcome: "succeeded" }];
          return jobRow(s, {
            status: "succeeded",
            result: ok("r"),
            startedAt: now,
            finishedAt: now,
            runs: 1,
            attempts,
            ...over,
          });
        };
        const none = async (row: JobRow, text: string) => {
          expect(await f.store.findJob(row.id)).toBeUndefined();
          expect(await f.readCache.get(s.sessionId, `/workspace/${text}`)).toBeUndefined();
        };
        // An unfinished call ahead of the position read: busy until it ends (under a bound that
        // never fills, below; the bound itself after).
        const bound = (maxActive: number) => ({ tenantId: s.tenantId, maxActive });
        const unbounded = bound(Number.MAX_SAFE_INTEGER);
        const seen = await nextSeq();
        expect(await f.store.busyBefore(s.sessionId, seen, unbounded)).toBe(false);
        const earlier = await submit(f.other);
        expect(await f.store.busyBefore(s.sessionId, await nextSeq(), unbounded)).toBe(true);
        // The tenant's bound, in the same statement: nothing ahead of `seen`, but the earlier
        // call is the tenant's one active call; no room under a bound of 1, room under 2.
        expect(await f.store.busyBefore(s.sessionId, seen, bound(1))).toBe(true);
        expect(await f.store.busyBefore(s.sessionId, seen, bound(2))).toBe(false);
        expect(await f.store.busyBefore(s.sessionId, await nextSeq(), bound(2))).toBe(true);
        expect(await f.store.busyBefore("ses_missing", 1, bound(2))).toBe(true);
        // A call queued (by another connection) since the position was read: nothing stored.
        const stale = ran();
        const opts = { hostId: "host-a", readCache: cached("stale") };
        expect(
          await f.store.insertFinished(stale, decisionAudit(stale), { ...opts, seq: seen }),
        ).toBeUndefined();
        await none(stale, "stale");
        // Past the tenant's bound on active calls (the earlier one is queued): refused, nothing stored.
        const over = ran();
        await expect(
          f.store.insertFinished(over, decisionAudit(over), {
            seq: await nextSeq(),
            hostId: "host-a",
            maxActive: 1,
          }),
        ).rejects.toBeInstanceOf(ActiveCallsFull);
        await none(over, "over");
        await f.store.finish(earlier.id, "succeeded", ok("done"));
        expect(await f.store.busyBefore(s.sessionId, await nextSeq(), unbounded)).toBe(false);
        expect(await f.store.busyBefore(s.sessionId, await nextSeq(), bound(1))).toBe(false);
        // Pinned elsewhere now: nothing stored.
        await f.pin(s.sessionId, "host-b");
        const moved = ran();
        const at = await nextSeq();
        expect(
          await f.store.insertFinished(moved, decisionAudit(moved), { seq: at, hostId: "host-a" }),
        ).toBeUndefined();
        await none(moved, "moved");
        await f.pin(s.sessionId, "host-a");
        // Stored: final, with its queue position, its audit entry and its read-cache entries.
        const good = ran();
        const stored = await f.store.insertFinished(good, decisionAudit(good), {
          seq: at,
          hostId: "host-a",
          maxActive: 1,
          readCache: cached("good"),
        });
        expect(stored).toMatchObject({ id: good.id, status: "succeeded", seq: at });
        expect(await f.store.findJob(good.id)).toMatchObject({
          status: "succeeded",
          seq: at,
          runs: 1,
          result: ok("r"),
        });
        expect(await nextSeq()).toBe(at + 1);
        expect(await f.auditKinds(good.id)).toEqual(["decision"]);
        expect(await f.readCache.get(s.sessionId, "/workspace/good")).toMatchObject({ lines: ["good"] });
        expect(await f.other.claim(good.id, W2)).toEqual({ kind: "skip", reason: "succeeded" });
        // Two racing for one position (two connections): exactly one is stored.
        const [x, y] = [ran(), ran()];
        const both = await Promise.all([
          f.store.insertFinished(x, decisionAudit(x), { seq: at + 1, hostId: "host-a" }),
          f.other.insertFinished(y, decisionAudit(y), { seq: at + 1, hostId: "host-a" }),
        ]);
        expect(both.filter((r) => r !== undefined)).toHaveLength(1);
        expect(await nextSeq()).toBe(at + 2);
        // A deleted session: nothing stored.
        await f.retire(s.sessionId);
        const gone = ran();
        expect(
          await f.store.insertFinished(gone, decisionAudit(gone), { seq: at + 2, hostId: "host-a" }),
        ).toBeUndefined();
        await none(gone, "gone");
      });

      it("an insert that would claim writes nothing for a taken key and keeps the tenant's bound", async () => {
        await f.pin(s.sessionId, "host-a");
        const claim = { worker: W1.worker, hostId: "host-a" };
        const first = jobRow(s, { idempotencyKey: "k" });
        const again = jobRow(s, { idempotencyKey: "k" });
        expect((await f.store.insertClaimed(first, decisionAudit(first), { claim })).kind).toBe("stored");
        expect(await f.store.insertClaimed(again, decisionAudit(again), { claim })).toEqual({
          kind: "taken",
          job: expect.objectContaining({ id: first.id, status: "running" }),
        });
        expect(await f.store.findJob(again.id)).toBeUndefined();
        const over = jobRow(s);
        await expect(
          f.store.insertClaimed(over, decisionAudit(over), { claim, maxActive: 1 }),
        ).rejects.toBeInstanceOf(ActiveCallsFull);
        expect(await f.store.findJob(over.id)).toBeUndefined();
        // Refused and taken inserts took no number.
        expect((await f.session(s.sessionId)).nextSeq).toBe(2);
      });

      it("concurrent inserts that claim (two connections) start only the earliest call that may run", async () => {
        await f.pin(s.sessionId, "host-a");
        const claim = { worker: W1.worker, hostId: "host-a" };
        // Unsafe only, safe only, then mixed: each round starts with nothing queued or running.
        const patterns = [
          [0, 0, 0, 0, 0, 0],
          [1, 1, 1, 1, 1, 1],
          [1, 1, 0, 1, 0, 1],
          [0, 1, 1, 0, 1, 1],
        ];
        for (const pattern of patterns) {
          const rows = pattern.map((safe) => jobRow(s, { concurrencySafe: safe === 1 }));
          const outs = await Promise.all(
            rows.map((row, i) =>
              (i % 2 === 0 ? f.store : f.other).insertClaimed(row, decisionAudit(row), { claim }),
            ),
          );
          const bySeq = rows
            .map((row, i) => ({ row, out: outs[i]! }))
            .sort((a, b) => (a.row.seq ?? 0) - (b.row.seq ?? 0));
          // Every call of the round is queued or running: an unsafe call may start only as the
          // round's first, a safe one only behind safe ones; else it waits for an earlier call it
          // conflicts with (any one: SQLite names whichever its index finds first).
          bySeq.forEach(({ row, out }, i) => {
            const earlier = bySeq.slice(0, i).map((x) => x.row);
            const conflicts = earlier
              .filter((e) => !row.concurrencySafe || !e.concurrencySafe)
              .map((e) => e.id);
            const claimed = out.kind === "stored" ? out.claim : undefined;
            if (conflicts.length === 0) expect(claimed?.kind, JSON.stringify(pattern)).toBe("run");
            else expect(claimed?.kind === "wait" && conflicts.includes(claimed.blockedBy)).toBe(true);
          });
          const expected = bySeq.map((_, i) => {
            const { row } = bySeq[i]!;
            const earlier = bySeq.slice(0, i).map((x) => x.row);
            return earlier.some((e) => !row.concurrencySafe || !e.concurrencySafe) ? "queued" : "running";
          });
          const stored = await Promise.all(bySeq.map(({ row }) => f.store.findJob(row.id)));
          expect(stored.map((r) => r?.status)).toEqual(expected);
          for (const { row } of bySeq) await f.store.finish(row.id, "succeeded", ok("done"));
        }
      });

      it("holds a job back behind an earlier unsafe one; safe calls run side by side", async () => {
        const unsafe = await submit(f.store);
        const safe1 = await submit(f.store, { concurrencySafe: true });
        const safe2 = await submit(f.store, { concurrencySafe: true });
        expect(await f.store.claim(safe1.id, W1)).toEqual({ kind: "wait", blockedBy: unsafe.id });
        expect((await f.store.claim(unsafe.id, W1)).kind).toBe("run");
        expect(await f.store.finish(unsafe.id, "succeeded", ok("done"))).toBeTruthy();
        expect((await f.store.claim(safe1.id, W1)).kind).toBe("run");
        expect((await f.other.claim(safe2.id, W2)).kind).toBe("run");
      });

      it("takes over a running job only when asked, closing the lost attempt", async () => {
        const a = await submit(f.store);
        await f.store.claim(a.id, W1);
        expect(await f.other.claim(a.id, W2)).toEqual({ kind: "skip", reason: "running" });
        const c = await f.other.claim(a.id, { ...W2, takeOver: true });
        expect(c.kind).toBe("run");
        const row = await f.store.findJob(a.id);
        expect(row?.runs).toBe(2);
        expect(row?.attempts?.map((x) => [x.n, x.worker, x.outcome])).toEqual([
          [1, W1.worker, "worker lost"],
          [2, W2.worker, undefined],
        ]);
        expect(await f.auditKinds(a.id)).toEqual(["attempt", "decision"].sort());
      });

      it("calls an attempt its own worker took again (a step redone) not lost", async () => {
        const a = await submit(f.store);
        await f.store.claim(a.id, W1);
        expect((await f.store.claim(a.id, { ...W1, takeOver: true })).kind).toBe("run");
        const row = await f.store.findJob(a.id);
        expect(row?.attempts?.map((x) => [x.n, x.worker, x.outcome])).toEqual([
          [1, W1.worker, "taken again by the same worker"],
          [2, W1.worker, undefined],
        ]);
      });

      it("skips a job that is final or has a cancel request", async () => {
        const done = await submit(f.store, { status: "denied" });
        expect(await f.store.claim(done.id, W1)).toEqual({ kind: "skip", reason: "denied" });
        const cancelled = await submit(f.store);
        await f.other.requestCancel(cancelled.id);
        expect(await f.store.claim(cancelled.id, W1)).toEqual({ kind: "skip", reason: "cancelled" });
        expect(await f.store.claim("job_missing", W1)).toEqual({ kind: "skip", reason: "no such job" });
      });

      it("the cancel flag answers the row as it found it; a claim after it skips the row", async () => {
        expect(await f.other.requestCancel("job_missing")).toBeUndefined();
        const a = await submit(f.store);
        await f.store.claim(a.id, W1);
        expect(await f.other.requestCancel(a.id)).toEqual({ status: "running", runs: 1 });
        await f.store.requeue(a.id, "retry");
        expect(await f.other.requestCancel(a.id)).toEqual({ status: "queued", runs: 1 });
        expect(await f.store.claim(a.id, W2)).toEqual({ kind: "skip", reason: "cancelled" });
        const b = await submit(f.store);
        expect(await f.other.requestCancel(b.id)).toEqual({ status: "queued", runs: 0 });
      });

      it("requeues a running job and records the attempt's sandbox", async () => {
        const a = await submit(f.store);
        await f.store.claim(a.id, W1);
        expect(await f.store.recordAttemptSandbox(a.id, "sbx-1", 1)).toBe(true);
        await f.store.requeue(a.id, "retry");
        const row = await f.store.findJob(a.id);
        expect(row?.status).toBe("queued");
        expect(row?.seq).toBe(a.seq);
        expect(row?.attempts?.[0]).toMatchObject({ sandbox: "sbx-1", outcome: "retry" });
        expect(row?.attempts?.[0]?.endedAt).toBeTruthy();
        expect((await f.store.claim(a.id, W2)).kind).toBe("run");
      });

      it("fences a superseded attempt: its sandbox record and its finish change nothing", async () => {
        const a = await submit(f.store);
        await f.store.claim(a.id, W1);
        // W1 frozen; the job taken over by W2 (attempt 2).
        expect((await f.other.claim(a.id, { ...W2, takeOver: true })).kind).toBe("run");
        expect(await f.store.recordAttemptSandbox(a.id, "sbx-old", 1)).toBe(false);
        expect(
          await f.store.finish(a.id, "succeeded", { content: [], state: "success" }, { run: 1 }),
        ).toBeUndefined();
        expect(await f.other.recordAttemptSandbox(a.id, "sbx-new", 2)).toBe(true);
        const row = await f.store.findJob(a.id);
        expect(row?.status).toBe("running");
        expect(row?.attempts?.map((t) => t.sandbox)).toEqual([undefined, "sbx-new"]);
        expect(
          (await f.other.finish(a.id, "succeeded", { content: [], state: "success" }, { run: 2 }))?.status,
        ).toBe("succeeded");
        // A job that ended (cancelled, say) takes no record either: its run sends nothing.
        expect(await f.store.recordAttemptSandbox(a.id, "sbx-new", 2)).toBe(false);
      });

      it("lists the session's queued successors in order, with their safety", async () => {
        const a = await submit(f.store);
        const b = await submit(f.store, { concurrencySafe: true });
        await submit(f.store, { status: "awaiting_approval" });
        const c = await submit(f.store);
        expect(await f.other.queuedAfter(s.sessionId, a.seq!, 32)).toEqual([
          { id: b.id, safe: true },
          { id: c.id, safe: false },
        ]);
        expect(await f.other.queuedAfter(s.sessionId, a.seq!, 1)).toEqual([{ id: b.id, safe: true }]);
      });
    });

    describe("finish", () => {
      it("stores the first final status only, and closes the open attempt", async () => {
        const a = await submit(f.store);
        await f.store.claim(a.id, W1);
        const stored = await f.store.finish(a.id, "succeeded", ok("first"));
        expect(await f.other.finish(a.id, "failed", ok("second"), { error: "late" })).toBeUndefined();
        const row = await f.store.findJob(a.id);
        // What finish returns is the row as stored (its events are sent from it).
        expect(stored).toEqual({ ...row, laterCalls: expect.any(Boolean) });
        expect(row?.status).toBe("succeeded");
        expect(row?.result).toEqual(ok("first"));
        expect(row?.error).toBeNull();
        expect(row?.attempts?.[0]?.outcome).toBe("succeeded");
        expect(row?.finishedAt).toBeTruthy();
      });

      it("stores `cancelled` for a job flagged for cancellation only when asked (cancelWins)", async () => {
        const safe = { concurrencySafe: true };
        const [a, b, c] = [
          await submit(f.store, safe),
          await submit(f.store, safe),
          await submit(f.store, safe),
        ];
        for (const j of [a, b, c]) expect((await f.store.claim(j.id, W1)).kind).toBe("run");
        await f.other.requestCancel(a.id);
        await f.other.requestCancel(b.id);
        const flagged = await f.store.finish(a.id, "succeeded", ok("ran"), { cancelWins: true });
        expect(flagged?.status).toBe("cancelled");
        expect(flagged?.attempts?.at(-1)?.outcome).toBe("cancelled");
        expect(flagged?.result).toEqual(ok("ran"));
        expect((await f.store.finish(b.id, "failed", ok("x")))?.status).toBe("failed");
        const unflagged = await f.store.finish(c.id, "succeeded", ok("ran"), { cancelWins: true });
        expect(unflagged?.status).toBe("succeeded");
        expect(unflagged?.attempts?.at(-1)?.outcome).toBe("succeeded");
        expect({ ...(await f.store.findJob(a.id)), laterCalls: flagged?.laterCalls }).toEqual(flagged);
      });

      it("says whether a call of the session took a queue position after the finished one", async () => {
        const a = await submit(f.store);
        await f.store.claim(a.id, W1);
        const b = await submit(f.other);
        // b is queued behind a: a's finish must say so (its successors are woken from it).
        expect((await f.store.finish(a.id, "succeeded", ok("a")))?.laterCalls).toBe(true);
        await f.store.claim(b.id, W1);
        const asked = await submit(f.other, { status: "awaiting_approval" });
        // A pending approval takes no position; an approval that queues it takes one.
        const nothingAfter = await f.store.finish(b.id, "succeeded", ok("b"));
        if (opts.exactLaterCalls) expect(nothingAfter?.laterCalls).toBe(false);
        const c = await submit(f.store);
        await f.store.claim(c.id, W1);
        const approve = (job: JobRow): ApprovalOutcome => ({
          set: { status: "queued", decision: job.decision, approvedBy: "key_x" },
          remember: [],
          audit: decisionAudit(job),
        });
        expect(await f.other.settleApproval(asked.id, approve)).toBe(true);
        expect((await f.store.finish(c.id, "succeeded", ok("c")))?.laterCalls).toBe(true);
      });

      it("stores the run's read-cache entries with the finish, one per file", async () => {
        const a = await submit(f.store);
        await f.store.claim(a.id, W1);
        const entry = (filePath: string, text: string) => ({
          filePath,
          lines: [text],
          mtimeMs: 1.5,
          contentHash: text.padEnd(64, "0"),
          sizeBytes: text.length,
        });
        await f.readCache.put(s.sessionId, entry("/workspace/x", "old"));
        // Two of one file: the last one stands.
        const entries = [
          entry("/workspace/x", "mid"),
          entry("/workspace/x", "new"),
          entry("/workspace/y", "y"),
        ];
        const readCache = { sessionId: s.sessionId, entries };
        expect((await f.store.finish(a.id, "succeeded", ok("a"), { readCache }))?.status).toBe("succeeded");
        expect(await f.readCache.get(s.sessionId, "/workspace/x")).toEqual(entry("/workspace/x", "new"));
        expect(await f.readCache.get(s.sessionId, "/workspace/y")).toEqual(entry("/workspace/y", "y"));
        // A finish that does not apply (the job is final already) still stores what the run read.
        const late = { sessionId: s.sessionId, entries: [entry("/workspace/z", "z")] };
        expect(await f.other.finish(a.id, "failed", ok("late"), { readCache: late })).toBeUndefined();
        expect(await f.readCache.get(s.sessionId, "/workspace/z")).toEqual(entry("/workspace/z", "z"));
      });

      it("lets one of two racing finishes win", async () => {
        const a = await submit(f.store);
        await f.store.claim(a.id, W1);
        const statuses: JobStatus[] = ["succeeded", "cancelled"];
        const won = await Promise.all([
          f.store.finish(a.id, statuses[0]!, ok("a")),
          f.other.finish(a.id, statuses[1]!, ok("b")),
        ]);
        expect(won.filter(Boolean)).toHaveLength(1);
        const row = await f.store.findJob(a.id);
        expect(row?.status).toBe(statuses[won.findIndex(Boolean)]);
        expect(row?.attempts?.[0]?.outcome).toBe(row?.status);
      });
    });

    describe("external results", () => {
      it("takes the client's result once, even when two arrive together", async () => {
        const ext = await submit(f.store, { status: "awaiting_external" });
        const audit = { ...decisionAudit(ext), kind: "external_result" as const };
        const won = await Promise.all([
          f.store.finishExternal(ext.id, "succeeded", ok("one"), audit),
          f.other.finishExternal(ext.id, "failed", ok("two"), audit),
        ]);
        expect(won.filter(Boolean)).toHaveLength(1);
        const row = await f.store.findJob(ext.id);
        expect(row?.status).toBe(won[0] ? "succeeded" : "failed");
        expect(row?.result).toEqual(won[0] ? ok("one") : ok("two"));
        expect(row?.startedAt).toBeTruthy();
        expect((await f.auditKinds(ext.id)).filter((k) => k === "external_result")).toHaveLength(1);
        const queued = await submit(f.store);
        expect(await f.store.finishExternal(queued.id, "succeeded", ok("x"), audit)).toBe(false);
      });
    });

    describe("approvals", () => {
      const approve =
        (by: string, remember: string[] = []) =>
        (job: JobRow): ApprovalOutcome => ({
          set: { status: "queued", decision: { ...job.decision, decidedBy: "approval" }, approvedBy: by },
          remember,
          audit: { ...decisionAudit(job), kind: "approval", actorKeyId: by, data: { by } },
        });
      const deny =
        (by: string) =>
        (job: JobRow): ApprovalOutcome => ({
          set: {
            status: "denied",
            decision: { ...job.decision, behavior: "deny", decidedBy: "approval" },
            approvedBy: by,
            result: { content: [{ type: "text", text: "no" }], state: "denied" },
            finishedAt: new Date().toISOString(),
          },
          remember: [],
          audit: { ...decisionAudit(job), kind: "approval", actorKeyId: by, data: { by } },
        });

      it("answers once: of an approval and a denial racing, one wins and the row matches it", async () => {
        await submit(f.store);
        const asked = await submit(f.store, {
          status: "awaiting_approval",
          decision: { ...jobRow(s).decision, behavior: "ask" },
        });
        const won = await Promise.all([
          f.store.settleApproval(asked.id, approve("key_a", ["Bash(ls:*)"])),
          f.other.settleApproval(asked.id, deny("key_b")),
        ]);
        expect(won.filter(Boolean)).toHaveLength(1);
        const row = await f.store.findJob(asked.id);
        const kinds = await f.auditKinds(asked.id);
        expect(kinds.filter((k) => k === "approval")).toHaveLength(1);
        const rules = (await f.session(s.sessionId)).rules;
        if (won[0]) {
          expect(row).toMatchObject({ status: "queued", seq: 2, approvedBy: "key_a" });
          expect(rules.allow).toEqual(["Bash(ls:*)"]);
        } else {
          expect(row).toMatchObject({ status: "denied", seq: null, approvedBy: "key_b" });
          expect(rules.allow).toEqual([]);
        }
        expect(await f.store.settleApproval(asked.id, approve("key_c"))).toBe(false);
      });

      it("lists the pending approvals that are due", async () => {
        const due = await submit(f.store, {
          status: "awaiting_approval",
          approvalExpiresAt: "2020-01-01T00:00:00.000Z",
        });
        await submit(f.store, { status: "awaiting_approval", approvalExpiresAt: "2999-01-01T00:00:00.000Z" });
        const answered = await submit(f.store, {
          status: "awaiting_approval",
          approvalExpiresAt: "2020-01-01T00:00:00.000Z",
        });
        await f.store.settleApproval(answered.id, deny("k"));
        const ids = await f.other.dueApprovals(new Date().toISOString());
        expect(ids).toContain(due.id);
        expect(ids).not.toContain(answered.id);
      });

      it("leaves the job pending when the decider declines (not due yet)", async () => {
        const asked = await submit(f.store, { status: "awaiting_approval" });
        expect(await f.store.settleApproval(asked.id, () => undefined)).toBe(false);
        expect((await f.store.findJob(asked.id))?.status).toBe("awaiting_approval");
        expect(await f.store.settleApproval(asked.id, deny("expiry"))).toBe(true);
        expect((await f.store.findJob(asked.id))?.result?.state).toBe("denied");
      });

      it("refuses an approval that would queue past the tenant's bound; a denial still lands", async () => {
        await submit(f.store);
        const asked = await Promise.all(
          [1, 2, 3].map(() => submit(f.store, { status: "awaiting_approval" })),
        );
        const settled = await Promise.allSettled(
          asked.map((a, i) =>
            (i % 2 ? f.other : f.store).settleApproval(a.id, approve("k"), { maxActive: 2 }),
          ),
        );
        expect(settled.filter((o) => o.status === "fulfilled" && o.value)).toHaveLength(1);
        const refused = settled.filter((o) => o.status === "rejected");
        expect(refused).toHaveLength(2);
        for (const o of refused) expect(o.reason).toBeInstanceOf(ActiveCallsFull);
        const rows = await Promise.all(asked.map((a) => f.store.findJob(a.id)));
        expect(rows.map((r) => r?.status).sort()).toEqual([
          "awaiting_approval",
          "awaiting_approval",
          "queued",
        ]);
        const pending = rows.find((r) => r?.status === "awaiting_approval")!;
        // Left pending, with no approval recorded: it can be answered again once a slot frees.
        expect(await f.auditKinds(pending.id)).toEqual(["decision"]);
        expect(await f.store.settleApproval(pending.id, deny("k"), { maxActive: 2 })).toBe(true);
      });

      it("gives concurrently approved calls distinct seqs after the queued ones", async () => {
        await submit(f.store);
        const asked = await Promise.all(
          [1, 2, 3, 4].map(() => submit(f.store, { status: "awaiting_approval" })),
        );
        await Promise.all(
          asked.map((a, i) => (i % 2 ? f.other : f.store).settleApproval(a.id, approve("k"))),
        );
        const seqs = await Promise.all(asked.map(async (a) => (await f.store.findJob(a.id))?.seq));
        expect([...seqs].sort()).toEqual([2, 3, 4, 5]);
      });
    });
  });
}
