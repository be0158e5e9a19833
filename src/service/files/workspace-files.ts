/**
 * File transfers of a session's workspace: upload and download of one file (binary-safe) and a
 * tar export/import of `/workspace`. Each is decided by the permission engine as the Write (upload,
 * import: every member) or Read (download, export) call it amounts to; anything but `allow` is a
 * 403 POLICY_DENIED, since a transfer cannot wait for an approval. Allowed, it becomes a job of
 * the session (ordered with its calls, audited like one) that a worker runs against the sandbox;
 * the API process never touches the sandbox. Bytes are staged in the shared TransferStore, not the row.
 */

import { isTerminal } from "../../contracts/job.js";
import type { JobRow, SessionRow, StoredDecision } from "../../db/rows.js";
import { AppError, type ErrorCode, PolicyDeniedError, ValidationError } from "../../errors.js";
import { SANDBOX_WORKSPACE } from "../../sandbox/sandbox.js";
import { decisionAudit } from "../calls/audit.js";
import { decideCall } from "../calls/decide.js";
import { newJobRow } from "../calls/job-row.js";
import { enqueueOrWithdraw, publishState } from "../calls/job-transitions.js";
import { waitForJob } from "../calls/job-verbs.js";
import { findJob } from "../calls/job-view.js";
import { newId } from "../ids.js";
import type { ServiceDeps } from "../ports.js";
import { loadSession } from "../sessions/sessions.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { checkCallQuotas, withinActiveCalls } from "../tenancy/quotas.js";
import {
  importEntries,
  sha256Hex,
  TRANSFER_TOOLS,
  type TransferCode,
  type TransferInput,
  type TransferKind,
  workspaceFilePath,
} from "./transfer-job.js";

/** How long a transfer request waits for its job (a busy session's earlier calls run first). */

/** What the request tells a transfer's job: its W3C trace id, which the worker's lines carry. */
export interface TransferOptions {
  traceId?: string;
}

/** Writes `data` to the workspace file `path` (created with its parents, replaced if present). */
export async function uploadFile(
  deps: ServiceDeps,
  p: Principal,
  sessionId: string,
  rawPath: string,
  data: Buffer,
  opts: TransferOptions = {},
): Promise<{ path: string; bytes: number; sha256: string }> {
  const session = await openSession(deps, p, sessionId);
  const path = workspaceFilePath(rawPath);
  checkSize(deps, data.length);
  const decision = await decideAll(deps, session, "Write", [{ path, field: "path" }]);
  const sha256 = sha256Hex(data);
  await runTransfer(deps, p, session, opts, "upload", { path, bytes: data.length, sha256 }, decision, data);
  return { path, bytes: data.length, sha256 };
}

/** The bytes of the workspace file `path`. */
export async function downloadFile(
  deps: ServiceDeps,
  p: Principal,
  sessionId: string,
  rawPath: string,
  opts: TransferOptions = {},
): Promise<{ path: string; data: Buffer }> {
  const session = await openSession(deps, p, sessionId);
  const path = workspaceFilePath(rawPath);
  const decision = await decideAll(deps, session, "Read", [{ path, field: "path" }]);
  return { path, data: await runTransfer(deps, p, session, opts, "download", { path }, decision) };
}

/** A tar of /workspace; members the session's Read rules refuse are left out by the worker. */
export async function exportWorkspace(
  deps: ServiceDeps,
  p: Principal,
  sessionId: string,
  opts: TransferOptions = {},
): Promise<Buffer> {
  const session = await openSession(deps, p, sessionId);
  const decision = await decideAll(deps, session, "Read", [{ path: SANDBOX_WORKSPACE, field: "path" }]);
  return runTransfer(deps, p, session, opts, "export", { path: SANDBOX_WORKSPACE }, decision);
}

/** Extracts a tar into /workspace: regular files and directories only, every member a Write. */
export async function importWorkspace(
  deps: ServiceDeps,
  p: Principal,
  sessionId: string,
  archive: Buffer,
  opts: TransferOptions = {},
): Promise<{ entries: number; bytes: number }> {
  const session = await openSession(deps, p, sessionId);
  checkSize(deps, archive.length);
  const entries = importEntries(archive);
  const decision = await decideAll(
    deps,
    session,
    "Write",
    entries.map((e, i) => ({ path: e.path, field: `entries[${i}]` })),
  );
  const input = { entries: entries.length, bytes: archive.length, sha256: sha256Hex(archive) };
  await runTransfer(deps, p, session, opts, "import", input, decision, archive);
  return { entries: entries.length, bytes: archive.length };
}

async function openSession(deps: ServiceDeps, p: Principal, sessionId: string): Promise<SessionRow> {
  requireRole(p, ["agent", "tenant_admin"]);
  return await loadSession(deps.db, p, sessionId);
}

function checkSize(deps: Pick<ServiceDeps, "transfers">, bytes: number): void {
  if (bytes > deps.transfers.maxBytes) {
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `the body exceeds the transfer limit of ${deps.transfers.maxBytes} bytes`,
    );
  }
}

/**
 * The engine's decision for each path as a Read or Write call of it; the first path's decision
 * is the job's. Anything but allow is refused with every refused path named.
 */
async function decideAll(
  deps: ServiceDeps,
  session: SessionRow,
  toolName: "Read" | "Write",
  targets: { path: string; field: string }[],
): Promise<StoredDecision> {
  const tool = deps.tools.get(toolName);
  if (!tool) throw new Error(`the ${toolName} tool is not registered`);
  let first: StoredDecision | undefined;
  const refused: { path: string; message: string }[] = [];
  for (const t of targets) {
    const input = toolName === "Write" ? { file_path: t.path, content: "" } : { file_path: t.path };
    const d = await decideCall(deps.db, session, tool, input);
    first ??= d;
    if (d.behavior === "allow") continue;
    const why =
      d.behavior === "ask"
        ? "needs approval, which a file transfer cannot wait for; add an allow rule"
        : d.message;
    const rule = d.rule ? ` (rule ${d.rule})` : "";
    refused.push({ path: t.field, message: `${toolName} ${t.path}: ${why}${rule}` });
  }
  if (refused.length > 0) {
    throw new PolicyDeniedError(
      `the session's permission rules refuse this ${toolName === "Write" ? "write" : "read"}: ${refused[0]!.message}`,
      refused,
    );
  }
  if (!first)
    throw new ValidationError("nothing to transfer", [{ path: "body", message: "the archive is empty" }]);
  return first;
}

/**
 * Records the transfer as a job of the session (seq, audit entry) and waits for a worker to run
 * it; the staged answer (download, export) or nothing. Failures come back as the API's errors.
 */
async function runTransfer(
  deps: ServiceDeps,
  p: Principal,
  session: SessionRow,
  opts: TransferOptions,
  kind: TransferKind,
  input: TransferInput,
  decision: StoredDecision,
  staged?: Buffer,
): Promise<Buffer> {
  await deps.readiness.require(["redis", "docker"]);
  const { maxActiveCalls } = await deps.readiness.bound("redis", checkCallQuotas(deps, session.tenantId));
  const id = newId("job");
  let done = false;
  try {
    if (staged) await deps.transfers.write(id, "in", staged);
    await insertJob(deps, p, transferRow(id, session, kind, input, decision, opts.traceId), maxActiveCalls);
    await deps.readiness.bound("redis", publishState(deps, id)).catch(() => undefined);
    await enqueueOrWithdraw(deps, id);
    const view = await waitForJob(deps, id, deps.transfers.waitMs);
    if (!isTerminal(view.status)) {
      // Not a 503: the job exists and will run, so an answer that invites a retry would run it twice.
      throw new AppError(
        "TRANSFER_PENDING",
        `the transfer is still waiting to run as job ${id} (it will run once): follow GET /v1/jobs/${id} rather than sending it again`,
        [{ path: "job", message: id }],
      );
    }
    done = true;
    const row = (await findJob(deps.db, id))!;
    if (row.status !== "succeeded") throw transferFailure(row, input.path ?? "");
    return kind === "download" || kind === "export" ? await deps.transfers.read(id, "out") : Buffer.alloc(0);
  } finally {
    // A job still pending keeps its staged input; the sweep removes what is left behind.
    if (done || !(await findJob(deps.db, id))) await deps.transfers.remove(id).catch(() => undefined);
  }
}

function transferRow(
  id: string,
  session: SessionRow,
  kind: TransferKind,
  input: TransferInput,
  decision: StoredDecision,
  traceId: string | undefined,
): JobRow {
  return newJobRow({
    traceId: traceId ?? null,
    id,
    tenantId: session.tenantId,
    sessionId: session.id,
    tool: TRANSFER_TOOLS[kind],
    input: { ...input },
    status: "queued",
    decision,
    // Reads may run beside other reads of the session; writes wait their turn.
    concurrencySafe: kind === "download" || kind === "export",
  });
}

/**
 * Inserts the queued transfer job (its `seq` taken by the store) with its decision's audit entry,
 * within the tenant's limit on queued + running calls (429 past it).
 */
async function insertJob(
  deps: Pick<ServiceDeps, "store" | "handoff">,
  p: Principal,
  row: JobRow,
  maxActiveCalls: number,
): Promise<void> {
  await withinActiveCalls(deps, row.tenantId, maxActiveCalls, (bound) =>
    deps.store.insertJob(row, decisionAudit(p.keyId, row), bound),
  );
}

const FAILURE_CODES: Partial<Record<TransferCode, ErrorCode>> = {
  ENOENT: "NOT_FOUND",
  EISDIR: "VALIDATION",
  ENOTDIR: "VALIDATION",
  ESCAPE: "VALIDATION",
  ELOOP: "VALIDATION",
  EACCES: "FORBIDDEN",
  EFBIG: "PAYLOAD_TOO_LARGE",
  // No room left for the file (the session's workspace volume, or the host's disk, is full).
  ENOSPC: "PAYLOAD_TOO_LARGE",
};

/** The worker's failure as the API's error: the code it reported, the path as the failing field. */
function transferFailure(row: JobRow, path: string): AppError {
  const text = row.result?.content.map((b) => ("text" in b ? b.text : "")).join("") ?? "the transfer failed";
  const reported = row.result?.metadata?.code as TransferCode | undefined;
  if (row.status === "cancelled")
    return new AppError("CONFLICT", `the transfer was cancelled (job ${row.id})`);
  const code = (reported && FAILURE_CODES[reported]) ?? "SANDBOX_UNAVAILABLE";
  return new AppError(code, text, [{ path: "path", message: `${path}: ${text}` }]);
}
