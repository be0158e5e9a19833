/**
 * The worker's side of a workspace file transfer (see files/workspace-files.ts): reads or writes
 * the session's sandbox through its file operations (the executor's file helper, which runs as
 * the agent uid) and the staged bytes, then stores the result like any job's. Nothing is written
 * through a symbolic link or outside /workspace: each target's parent is resolved in the sandbox
 * first and an existing target that is a link is refused.
 */
import { posix } from "node:path";
import type { JobStatus, StoredResult } from "../../db/rows.js";
import type { ToolInput } from "../../permission/types.js";
import { type Sandbox, SandboxFileError, SandboxUnavailableError } from "../../sandbox/sandbox.js";
import { decideCall } from "../calls/decide.js";
import { finishJob, publishState } from "../calls/job-transitions.js";
import {
  type ImportEntry,
  importEntries,
  insideWorkspace,
  sha256Hex,
  type TransferCode,
  TransferError,
  type TransferInput,
  type TransferKind,
} from "../files/transfer-job.js";
import { TransferMissingError } from "../files/transfer-store.js";
import type { ServiceDeps } from "../ports.js";
import { acquireSessionSandbox } from "../sessions/acquire-sandbox.js";
import { logSuperseded } from "./attempt-fence.js";
import { type Claim, recordAttemptSandbox, wakeSuccessors } from "./claim-job.js";

type Running = Extract<Claim, { kind: "run" }>;

const LIST_TIMEOUT_MS = 60_000;
const TAR_TIMEOUT_MS = 300_000;

export async function runTransfer(deps: ServiceDeps, claim: Running, kind: TransferKind): Promise<void> {
  const { job, session } = claim;
  await publishState(deps, job.id);
  const input = job.input as TransferInput;
  let status: JobStatus = "succeeded";
  let result: StoredResult;
  try {
    const sandbox = await acquireSessionSandbox(deps, session);
    // The fence a tool call's first operation has (execute-job.ts): a worker that lost the job
    // (frozen, its host declared lost, the transfer run elsewhere) writes and stores nothing.
    const instance = sandbox.instanceId ? await sandbox.instanceId() : undefined;
    if (instance !== undefined && !(await recordAttemptSandbox(deps, job.id, instance, job.runs))) {
      logSuperseded(deps.logger, { jobId: job.id, run: job.runs }, "the transfer is not done here");
      return;
    }
    const summary = await OPS[kind](deps, sandbox, job.id, input, session);
    result = {
      content: [{ type: "text", text: summary.text }],
      state: "success",
      metadata: summary.metadata,
    };
  } catch (err) {
    if (err instanceof SandboxUnavailableError) throw err;
    // Staged input gone (it outlived its TTL waiting in the queue): a failure to say, not a crash.
    const code: TransferCode | undefined =
      err instanceof TransferError || err instanceof SandboxFileError
        ? err.code
        : err instanceof TransferMissingError
          ? "EIO"
          : undefined;
    if (!code) deps.logger.error({ err, jobId: job.id }, "file transfer failed unexpectedly");
    const text =
      code === "ENOSPC"
        ? `no space left for ${input.path ?? "/workspace"}: the session's workspace, or the host's disk, is full`
        : code
          ? (err as Error).message
          : `internal error during the transfer (job ${job.id})`;
    status = "failed";
    result = { content: [{ type: "text", text }], state: "error", metadata: { code: code ?? "EIO" } };
  }
  if (await finishJob(deps, job.id, status, result, { run: job.runs })) {
    deps.metrics.jobFinished(status, job);
    await publishState(deps, job.id);
  }
  await wakeSuccessors(deps, job.id);
}

type Session = Running["session"];
type Summary = { text: string; metadata: Record<string, unknown> };
type Op = (
  deps: ServiceDeps,
  sb: Sandbox,
  jobId: string,
  input: TransferInput,
  s: Session,
) => Promise<Summary>;

const OPS: Record<TransferKind, Op> = {
  async upload(deps, sb, jobId, input) {
    const path = input.path!;
    const data = await deps.transfers.read(jobId, "in");
    await assertWritable(sb, path);
    await sb.writeFile(path, data);
    return {
      text: `wrote ${data.length} bytes to ${path}`,
      metadata: { bytes: data.length, sha256: sha256Hex(data) },
    };
  },

  async download(deps, sb, jobId, input) {
    const path = input.path!;
    const real = await sb.realPath(path);
    if (!insideWorkspace(real)) throw new TransferError("ESCAPE", `${path} resolves outside /workspace`);
    const file = await sb.readFile(real, { maxBytes: deps.transfers.maxBytes });
    await deps.transfers.write(jobId, "out", file.data);
    return { text: `read ${file.size} bytes from ${path}`, metadata: { bytes: file.size } };
  },

  async export(deps, sb, jobId, _input, session) {
    const members = await listWorkspace(sb);
    // Each member as the Read call of it: what the session's rules refuse stays out.
    const read = deps.tools.get("Read");
    const allowed: string[] = [];
    for (const rel of members) {
      if (read === undefined) break;
      const d = await decideCall(deps.db, session, read, { file_path: `/workspace/${rel}` } as ToolInput);
      if (d.behavior === "allow") allowed.push(rel);
    }
    const max = deps.transfers.maxBytes;
    const r = await sb.exec({
      argv: [
        "bash",
        "-c",
        // --verbatim-files-from: a member named like an option (`-C`, `--checkpoint…`) stays a name.
        // `head` ends tar one byte past the limit: a sparse file of 100 GiB (no blocks in the quota)
        // was otherwise read to its end, to the timeout, its output dropped past the cap.
        'set -o pipefail; tar -C /workspace --null --no-recursion --verbatim-files-from -T - -cf - | head -c "$1" | base64 -w0',
        "bash",
        String(max + 1),
      ],
      stdin: allowed.map((rel) => `${rel}\0`).join(""),
      timeoutMs: TAR_TIMEOUT_MS,
      maxOutputBytes: Math.ceil((max + 1) / 3) * 4 + 4,
    });
    const tar = Buffer.from(r.stdout, "base64");
    if (r.truncated || tar.length > max)
      throw new TransferError("EFBIG", `the workspace archive exceeds ${max} bytes`);
    if (r.exitCode !== 0) throw new TransferError("EIO", `tar failed: ${r.stderr.slice(0, 500)}`);
    await deps.transfers.write(jobId, "out", tar);
    const omitted = members.length - allowed.length;
    return {
      text: `archived ${allowed.length} entries (${tar.length} bytes)${omitted ? `; ${omitted} left out by the Read rules` : ""}`,
      metadata: { bytes: tar.length, entries: allowed.length, omitted },
    };
  },

  async import(deps, sb, jobId) {
    const entries = importEntries(await deps.transfers.read(jobId, "in"));
    await extract(sb, entries);
    const files = entries.filter((e) => e.kind === "file");
    const bytes = files.reduce((n, e) => n + e.data.length, 0);
    return {
      text: `extracted ${entries.length} entries (${bytes} bytes)`,
      metadata: { entries: entries.length, bytes },
    };
  },
};

/** Relative paths of everything in /workspace (files, directories, links), on this filesystem only. */
async function listWorkspace(sb: Sandbox): Promise<string[]> {
  const r = await sb.exec({
    argv: ["find", "/workspace", "-xdev", "-mindepth", "1", "-printf", "%P\\0"],
    timeoutMs: LIST_TIMEOUT_MS,
    maxOutputBytes: 16 * 1024 * 1024,
  });
  if (r.truncated) throw new TransferError("EFBIG", "the workspace has too many entries to archive");
  if (r.exitCode !== 0)
    throw new TransferError("EIO", `listing the workspace failed: ${r.stderr.slice(0, 500)}`);
  return r.stdout.split("\0").filter((p) => p !== "");
}

/** Directories first (mkdir -p, as the agent), then files; each target checked before it is written. */
async function extract(sb: Sandbox, entries: ImportEntry[]): Promise<void> {
  const dirs = entries.filter((e) => e.kind === "directory").map((e) => e.path);
  for (const dir of dirs) await assertWritable(sb, dir, "directory");
  if (dirs.length > 0) await run(sb, ["mkdir", "-p", "--", ...dirs]);
  const executables: string[] = [];
  for (const e of entries) {
    if (e.kind !== "file") continue;
    await assertWritable(sb, e.path);
    await sb.writeFile(e.path, e.data);
    if (e.executable) executables.push(e.path);
  }
  if (executables.length > 0) await run(sb, ["chmod", "+x", "--", ...executables]);
}

/**
 * The target's parent resolves (symlinks followed) inside /workspace, and the target is not itself
 * a link (a write would follow it) nor, for a file, a directory.
 */
async function assertWritable(sb: Sandbox, path: string, kind: "file" | "directory" = "file"): Promise<void> {
  const parent = await sb.realPath(posix.dirname(path));
  if (!insideWorkspace(parent))
    throw new TransferError("ESCAPE", `${path}: its directory resolves outside /workspace`);
  const st = await sb.stat(path);
  if (st?.type === "symlink")
    throw new TransferError("ELOOP", `${path} is a symbolic link; it is not written through`);
  if (st && st.type !== kind) {
    throw new TransferError(
      st.type === "directory" ? "EISDIR" : "ENOTDIR",
      `${path} exists and is a ${st.type}`,
    );
  }
}

async function run(sb: Sandbox, argv: string[]): Promise<void> {
  const r = await sb.exec({ argv, timeoutMs: LIST_TIMEOUT_MS, maxOutputBytes: 64 * 1024 });
  if (r.exitCode !== 0) throw new TransferError("EIO", `${argv[0]} failed: ${r.stderr.slice(0, 500)}`);
}
