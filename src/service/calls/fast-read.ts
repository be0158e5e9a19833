/**
 * A read-only call run before it is stored (a caller that waits for it, serve mode): instead of
 * an insert that claims it, the run, then a finish (two transactions around the run), the tool
 * runs first and the call is stored once, already final (JobStore.insertFinished). The store
 * keeps it only when nothing could have ordered it differently: no call of its session was
 * unfinished before the run (busyBefore) and none took a queue position since (the session's next
 * `seq` unchanged, read before the run), the session still active and pinned here, the tenant
 * within its active-call bound. Otherwise the result is thrown away unseen and the call goes the
 * usual way, under a new id (its executor replies are memoized by job id, call-memo.mjs: the usual
 * run must not be answered with this one's read).
 * Only a tool that `runsAhead` (changes nothing: Read, whose executor read opens only a regular
 * file, file-ops.mjs), without middlewares of its own, and no idempotency key (a key's job is
 * found by a submit that may come while this one runs).
 * The tool's first read (`firstRead`) is sent as soon as busyBefore has said no, before the run
 * is set up (toolkit, sandbox, context): the executor reads while this thread does the rest. It
 * must not be sent before busyBefore: a call ahead that finished between the read and the check
 * would go unseen.
 */

import { passed } from "../../call-path.js";
import type { JobRow, SessionRow } from "../../db/rows.js";
import type { FinishedInsert } from "../../db/store.js";
import type { ReadFileResult, Sandbox } from "../../sandbox/sandbox.js";
import type { ToolChunk } from "../../toolkit/content.js";
import type { SandboxRead, ToolBase } from "../../toolkit/tool-base.js";
import { nowIso } from "../clock.js";
import type { ServiceDeps } from "../ports.js";
import { acquireSessionSandbox } from "../sessions/acquire-sandbox.js";
import { runDirectories } from "../sessions/working-directories.js";
import { heldActiveCalls, holdActiveCall } from "../tenancy/calls-held.js";
import type { Principal } from "../tenancy/principal.js";
import { runContext, runStatus, runToolkit, toResult } from "../worker/execute-job.js";
import { jobSandbox } from "../worker/job-sandbox.js";
import { RunReadCache } from "../worker/run-read-cache.js";
import { decisionAudit } from "./audit.js";
import { publishEvents, rowEvents, statusEvent } from "./job-transitions.js";

/** Whether a submit of `tool` may try the fast path at all (the rest is checked by `fastRead`). */
export function mayRunAhead(
  tool: ToolBase,
  row: Pick<JobRow, "status" | "idempotencyKey">,
  wait: boolean | undefined,
): boolean {
  return (
    wait === true &&
    row.status === "queued" &&
    row.idempotencyKey === null &&
    tool.runsAhead === true &&
    tool.middlewares.length === 0
  );
}

/**
 * Runs the call now and stores it final; the row as stored, or undefined when it may not run
 * ahead (nothing is written then, and the sandbox saw only a read of a regular file).
 */
export async function fastRead(
  deps: ServiceDeps,
  p: Principal,
  session: SessionRow,
  row: JobRow,
  tool: ToolBase,
  maxActiveCalls: number,
): Promise<JobRow | undefined> {
  const hostId = deps.hostId;
  // This host's running sandbox only: no container is started for a call that may be dropped.
  if (!hostId || session.hostId !== hostId || !deps.sandboxes.knownInstance?.(session.id)) return undefined;
  // An active call of its tenant while it runs, as a claimed run is (its row is written only
  // once it is over): not past the tenant's bound with the other reads running ahead here.
  const tenant = row.tenantId;
  if (heldActiveCalls(deps, tenant) >= maxActiveCalls) return undefined;
  // One of the worker's slots for the run, as the hand-off takes (its concurrency holds).
  const slot = deps.handoff?.reserve(row.id, row.sessionId);
  if (!slot) return undefined;
  const release = holdActiveCall(deps.handoff!, tenant);
  // Room for this one beside the calls stored and the other reads held here (now: they come and go).
  const room = () => maxActiveCalls - (heldActiveCalls(deps, tenant) - 1);
  try {
    const seq = session.nextSeq;
    // Not run when a call of the session ahead is not over, nor when the tenant's stored calls
    // leave no room for this one beside the reads held here (its store would refuse it: nothing
    // is run to be thrown away). One statement: submitCall's early count is skipped for it.
    if (await deps.store.busyBefore(session.id, seq, { tenantId: tenant, maxActive: room() }))
      return undefined;
    passed("ordered");
    const running = runAhead(deps, session, row, slot.claim.worker, tool.firstRead?.(row.input));
    // The audit entry's digest is made while the executor reads, once the request is on its way.
    await new Promise(setImmediate);
    const audit = decisionAudit(p.keyId, row);
    const ran = await running;
    passed("tool returned");
    if (!ran) return count(deps, "discarded");
    const opts: FinishedInsert = { maxActive: room(), seq, hostId, readCache: ran.readCache };
    const stored = await deps.store.insertFinished(ran.final, audit, opts).catch((err: unknown) => {
      // The usual path meets the same refusal or outage and reports it as it does.
      deps.logger.debug({ err, jobId: row.id }, "fast read not stored");
      return undefined;
    });
    if (!stored) {
      // Stored or not, the executor may forget what it kept for this id (never used again).
      ran.acknowledge();
      return count(deps, "discarded");
    }
    passed("stored");
    // The rest waits for the answer to be on its way: the row is the truth meanwhile (a follower
    // that comes first closes with the stored result, follow-job-events.ts). The metrics and the
    // executor's acknowledgement (queued for its next request) then; the events' write (a Redis
    // script call, ~0.1 ms of this thread) is held: it goes with this process's next write or
    // read of events, or with the other held ones at the bus's next tick (RedisBus#publishStatus).
    // Sent while the next read waits for its executor, it slowed that executor on 2 cores (the
    // woken Redis takes the core the executor needs): NOTES-read31.md.
    setImmediate(() => {
      count(deps, "stored");
      deps.metrics.jobFinished(stored.status, stored);
      ran.acknowledge();
      const events = [statusEvent("queued"), statusEvent("running"), ...ran.chunks, ...rowEvents(stored)];
      void publishEvents(deps, stored, events, ["queued", "running"], { held: true });
    });
    return stored;
  } finally {
    release();
    slot.release();
  }
}

function count(deps: Pick<ServiceDeps, "metrics">, outcome: "stored" | "discarded"): undefined {
  deps.metrics.inc("toolshed_fast_reads_total", { outcome });
  return undefined;
}

interface RanAhead {
  final: JobRow;
  readCache: FinishedInsert["readCache"];
  chunks: { type: "chunk"; data: unknown }[];
  acknowledge(): void;
}

/** The tool's run as executeJob does it, with nothing stored or published; undefined: unusable. */
async function runAhead(
  deps: ServiceDeps,
  session: SessionRow,
  row: JobRow,
  worker: string,
  first: SandboxRead | undefined,
): Promise<RanAhead | undefined> {
  const startedAt = nowIso();
  let instance: string | undefined;
  let failed = false;
  const jsb = jobSandbox({
    jobId: row.id,
    sessionId: session.id,
    acquire: () => acquireSessionSandbox(deps, session),
    // Nothing to fence: the read has no row (and so no attempt another worker could take).
    onInstance: (i) => {
      instance = i;
      return undefined;
    },
    liveInstance: false,
    onUnavailable: () => {
      failed = true;
    },
  });
  const acknowledge = () => jsb.used()?.acknowledge?.(row.id);
  const sandbox = first ? readingAhead(jsb.sandbox, first) : { sandbox: jsb.sandbox, sent: undefined };
  // The read's request is written (a chain of settled promises) before the rest is set up.
  if (first) await new Promise(setImmediate);
  const { toolkit, activeGroups } = await runToolkit(deps, session).catch(() => ({
    toolkit: undefined,
    activeGroups: undefined,
  }));
  // The session's tool as a run sees it: the crash guard and nothing else around it.
  if (toolkit?.getTool(row.tool)?.middlewares.length !== 1) {
    // The read sent ahead is over before its memo entry is let go.
    await sandbox.sent?.catch(() => undefined);
    acknowledge();
    return undefined;
  }
  const chunks: RanAhead["chunks"] = [];
  const seen = new Set<string>();
  const onChunk = (chunk: ToolChunk) => {
    if (chunk.isLast || seen.has(chunk.id)) return;
    seen.add(chunk.id);
    chunks.push({ type: "chunk", data: { content: chunk.content, state: chunk.state } });
  };
  const readCache = new RunReadCache(deps.readCache, session.id);
  const signal = new AbortController().signal;
  const ctx = runContext(
    deps,
    { job: row, session },
    {
      ...(await runDirectories(deps.db, session)),
      sandbox: sandbox.sandbox,
      readCache,
      signal,
      onChunk,
      activeGroups,
      reportCrash: () => {
        failed = true;
      },
    },
  );
  const response = await toolkit
    .callTool(row.tool, row.input, ctx, { callId: row.id })
    .catch(() => undefined);
  // The read sent ahead is over before the run is (its answer, taken or not): the executor lets go
  // only of what is over when the job is acknowledged (call-memo.mjs#ack), and a reply it keeps
  // past that stays until it ages out (30 min, up to 8 MiB). Already over when the run took it.
  await sandbox.sent?.catch(() => undefined);
  if (!response || failed) {
    acknowledge();
    return undefined;
  }
  const status = runStatus(response, false);
  const finishedAt = nowIso();
  const attempt = { n: 1, worker, startedAt, ...(instance ? { sandbox: instance } : {}) };
  const final: JobRow = {
    ...row,
    status,
    result: toResult(response),
    startedAt,
    finishedAt,
    runs: 1,
    hostId: session.hostId,
    attempts: [{ ...attempt, endedAt: finishedAt, outcome: status }],
  };
  return { final, readCache: readCache.held(), chunks, acknowledge };
}

/**
 * `first` sent now through `sandbox`; the sandbox a run then uses answers its first `readFile`
 * with that read's answer when it asks for exactly that read (any other goes to `sandbox`).
 */
export function readingAhead(
  sandbox: Sandbox,
  first: SandboxRead,
): { sandbox: Sandbox; sent: Promise<ReadFileResult> } {
  const sent = sandbox.readFile(first.path, { maxBytes: first.maxBytes });
  // Taken by the run, or by nobody (a run that asks for another read first, or none).
  sent.catch(() => undefined);
  let waiting: Promise<ReadFileResult> | undefined = sent;
  const readFile: Sandbox["readFile"] = (path, opts) => {
    const ahead = waiting;
    waiting = undefined;
    const same = path === first.path && opts?.maxBytes === first.maxBytes && opts.callKey === undefined;
    return ahead && same ? ahead : sandbox.readFile(path, opts);
  };
  // Everything else is `sandbox`'s own (a class instance's methods too).
  const wrapped = new Proxy(sandbox, {
    get: (target, key) => (key === "readFile" ? readFile : Reflect.get(target, key)),
  });
  return { sandbox: wrapped, sent };
}
