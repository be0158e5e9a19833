import type { Socket } from "node:net";
import { passed } from "../call-path.js";
import { CONNECTION_DONE, RequestNotDeliveredError } from "./executor-channel.js";
import { LineSplitter } from "./line-splitter.js";
import {
  type ExecRequest,
  type ExecResult,
  type FileStat,
  type OutputStream,
  type ReadFileResult,
  SandboxFileError,
  SandboxUnavailableError,
} from "./sandbox.js";

// The executor sends output in pipe-sized pieces (≤ 64 KiB, ≤ 6× that once JSON-escaped).
const EXEC_LINE_BYTES = 1024 * 1024;
const SMALL_LINE_BYTES = 64 * 1024;
/** readFile's default bound when the caller gives none. */
export const DEFAULT_READ_MAX_BYTES = 64 * 1024 * 1024;
// Host-side backstops, in case the executor never answers.
const FILE_OP_TIMEOUT_MS = 30_000;
const EXEC_GRACE_MS = 5_000;

type Message = Record<string, unknown>;

/** Job ids whose kept outcomes the executor may forget, sent along with the next request. */
export type Acks = string[];

/** Runs one command over a dedicated executor connection; the executor enforces the limits. */
export function execOverSocket(sock: Socket, req: ExecRequest, acks: Acks = []): Promise<ExecResult> {
  const started = Date.now();
  const out = { stdout: new CappedText(req.maxOutputBytes), stderr: new CappedText(req.maxOutputBytes) };
  return new Promise((resolve, reject) => {
    let settled = false;
    let cancelled = false;
    let acked = false;
    const partial = (timedOut: boolean): ExecResult => ({
      exitCode: null,
      stdout: out.stdout.text(),
      stderr: out.stderr.text(),
      timedOut,
      cancelled,
      truncated: out.stdout.truncated || out.stderr.truncated,
      durationMs: Date.now() - started,
    });
    // `answered`: the command's end came whole with no cancel sent: the connection is clean and
    // may serve another request.
    const settle = (result: ExecResult | Error, answered = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(backstop);
      req.signal?.removeEventListener("abort", onAbort);
      sock.off("data", onData);
      sock.off("close", onClose);
      if (answered && !cancelled) sock.emit(CONNECTION_DONE);
      else sock.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onAbort = (): void => {
      cancelled = true;
      sock.write(`${JSON.stringify({ op: "cancel" })}\n`);
      clearTimeout(backstop);
      backstop = setTimeout(() => settle(partial(false)), EXEC_GRACE_MS);
    };
    // setTimeout fires at once past 2^31-1 ms, so clamp the backstop.
    const backstopMs = Math.min(Math.max(req.timeoutMs, 0) + EXEC_GRACE_MS, 2 ** 31 - 1);
    let backstop = setTimeout(() => settle(partial(true)), backstopMs);

    const splitter = new LineSplitter(EXEC_LINE_BYTES, (line) => {
      // A line after the end is out of turn: the connection is not to be trusted again.
      if (settled) return void sock.destroy();
      const msg = parse(line);
      if (msg?.t === "a" && !acked) {
        acked = true;
      } else if (msg?.t === "o" && typeof msg.d === "string") {
        const stream: OutputStream = msg.s === 1 ? "stdout" : "stderr";
        const kept = out[stream].add(msg.d);
        // Replayed output (a re-attach) was streamed by the attempt that saw it first.
        // A throwing listener must not break the protocol; streaming is best effort.
        if (kept && msg.r !== 1) safely(() => req.onOutput?.(stream, kept));
      } else if (msg?.t === "x") {
        passed("executor answered");
        const result = {
          exitCode: typeof msg.exitCode === "number" ? msg.exitCode : null,
          stdout: out.stdout.text(),
          stderr: out.stderr.text(),
          timedOut: msg.timedOut === true,
          cancelled: msg.cancelled === true || cancelled,
          truncated: msg.truncated === true || out.stdout.truncated || out.stderr.truncated,
          durationMs: typeof msg.durationMs === "number" ? msg.durationMs : Date.now() - started,
          ...processReport(msg),
        };
        settle(result, true);
      } else {
        settle(new SandboxUnavailableError("executor sent an unexpected message"));
      }
    });
    const onData = (chunk: Buffer) => {
      try {
        splitter.push(chunk);
      } catch (err) {
        settle(new SandboxUnavailableError("executor protocol error", { cause: err }));
      }
    };
    const onClose = () => {
      if (cancelled) settle(partial(false));
      else if (!acked) settle(new RequestNotDeliveredError());
      else settle(new SandboxUnavailableError("sandbox stopped while the command ran"));
    };
    sock.on("data", onData);
    sock.once("close", onClose);

    if (req.signal?.aborted) {
      cancelled = true;
      settle(partial(false));
      return;
    }
    req.signal?.addEventListener("abort", onAbort, { once: true });
    const { argv, cwd, env, stdin, timeoutMs, maxOutputBytes } = req;
    const request = {
      op: "exec",
      argv,
      cwd,
      env,
      stdin,
      timeoutMs,
      maxOutputBytes,
      as: req.identity ?? "agent",
      key: req.callKey,
      cwdFd: req.reportCwd === true,
      acks,
    };
    // Before the write: a woken executor may run on this core before the write returns.
    passed("executor asked");
    sock.write(`${JSON.stringify(request)}\n`);
  });
}

/** The executor's account of the call's processes and final directory, checked field by field. */
function processReport(msg: Message): Partial<ExecResult> {
  const report: Partial<ExecResult> = {};
  if (typeof msg.cwd === "string" && msg.cwd.startsWith("/")) report.cwd = msg.cwd;
  if (typeof msg.killed === "number") report.killed = msg.killed;
  if (typeof msg.leftoverCount === "number" && Array.isArray(msg.leftover)) {
    report.leftoverCount = msg.leftoverCount;
    report.leftover = msg.leftover
      .filter(
        (p): p is { pid: number; cmd: string } => typeof p?.pid === "number" && typeof p?.cmd === "string",
      )
      .map(({ pid, cmd }) => ({ pid, cmd }));
  }
  return report;
}

/** What every file operation may carry: its once-only key and the acknowledgements. */
export interface FileOpExtra {
  key?: string;
  acks?: Acks;
}

/** Reads a file through the executor (symlinks resolve inside the container). */
export async function readFileOverSocket(
  sock: Socket,
  path: string,
  maxBytes: number,
  extra: FileOpExtra = {},
): Promise<ReadFileResult> {
  const lineBytes = Math.ceil(maxBytes / 3) * 4 + SMALL_LINE_BYTES;
  const msg = await fileOp(sock, { op: "readFile", path, maxBytes, ...extra }, path, lineBytes);
  if (typeof msg.data !== "string" || typeof msg.mtimeMs !== "number") throw badReply(path);
  const data = Buffer.from(msg.data, "base64");
  if (data.length > maxBytes) throw new SandboxFileError("EFBIG", path, `${path} exceeds ${maxBytes} bytes`);
  const realPath = typeof msg.realPath === "string" ? msg.realPath : undefined;
  return { data, size: data.length, mtimeMs: msg.mtimeMs, ...(realPath ? { realPath } : {}) };
}

/** Writes a whole file, creating parents, and returns its new stat. */
export async function writeFileOverSocket(
  sock: Socket,
  path: string,
  data: Buffer,
  extra: FileOpExtra = {},
): Promise<FileStat> {
  const msg = await fileOp(
    sock,
    { op: "writeFile", path, data: data.toString("base64"), ...extra },
    path,
    SMALL_LINE_BYTES,
  );
  const stat = toStat(msg.stat);
  if (!stat) throw badReply(path);
  return stat;
}

/** lstat; null when missing. */
export async function statOverSocket(
  sock: Socket,
  path: string,
  extra: FileOpExtra = {},
): Promise<FileStat | null> {
  const msg = await fileOp(sock, { op: "stat", path, ...extra }, path, SMALL_LINE_BYTES);
  if (msg.stat === null) return null;
  const stat = toStat(msg.stat);
  if (!stat) throw badReply(path);
  return stat;
}

/** realpath, with a missing leaf resolved through its parent. */
export async function realPathOverSocket(
  sock: Socket,
  path: string,
  extra: FileOpExtra = {},
): Promise<string> {
  const msg = await fileOp(sock, { op: "realPath", path, ...extra }, path, SMALL_LINE_BYTES);
  if (typeof msg.path !== "string" || !msg.path.startsWith("/")) throw badReply(path);
  return msg.path;
}

/** The boot id of the executor at the other end, through a live round trip. */
export async function pingOverSocket(sock: Socket, acks: Acks = []): Promise<string> {
  const msg = await fileOp(sock, { op: "ping", acks }, "(ping)", SMALL_LINE_BYTES);
  if (typeof msg.boot !== "string") throw new SandboxUnavailableError("executor sent a malformed ping reply");
  return msg.boot;
}

function fileOp(sock: Socket, request: Message, path: string, maxLineBytes: number): Promise<Message> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let acked = false;
    // `answered`: the executor's answer came whole (a result or its own error): the connection
    // is clean and may serve another request.
    const settle = (result: Message | Error, answered: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.off("data", onData);
      sock.off("close", onClose);
      if (answered) sock.emit(CONNECTION_DONE);
      else sock.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const timer = setTimeout(
      () => settle(new SandboxUnavailableError(`executor did not answer ${request.op} in time`), false),
      FILE_OP_TIMEOUT_MS,
    );
    const splitter = new LineSplitter(maxLineBytes, (line) => {
      // A line after the answer is out of turn: the connection is not to be trusted again.
      if (settled) return void sock.destroy();
      const msg = parse(line);
      if (msg?.t === "a" && !acked) acked = true;
      else if (msg?.t === "r") {
        passed("executor answered");
        settle(msg, true);
      } else if (msg?.t === "e")
        settle(new SandboxFileError(errnoCode(msg.code), path, String(msg.message ?? "")), true);
      else settle(badReply(path), false);
    });
    const onData = (chunk: Buffer) => {
      try {
        splitter.push(chunk);
      } catch (err) {
        settle(new SandboxUnavailableError("executor protocol error", { cause: err }), false);
      }
    };
    const onClose = () =>
      settle(
        acked
          ? new SandboxUnavailableError(`sandbox stopped during ${request.op}`)
          : new RequestNotDeliveredError(),
        false,
      );
    sock.on("data", onData);
    sock.once("close", onClose);
    // Before the write: a woken executor may run on this core before the write returns.
    passed("executor asked");
    sock.write(`${JSON.stringify(request)}\n`);
  });
}

/** Keeps at most `limit` UTF-8 bytes of text; the executor caps too, this guards the host. */
class CappedText {
  private readonly parts: string[] = [];
  private bytes = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  add(text: string): string {
    const size = Buffer.byteLength(text);
    if (this.bytes + size <= this.limit) {
      this.bytes += size;
      this.parts.push(text);
      return text;
    }
    this.truncated = true;
    const kept = Buffer.from(text)
      .subarray(0, this.limit - this.bytes)
      .toString("utf8");
    this.bytes = this.limit;
    if (kept) this.parts.push(kept);
    return kept;
  }

  text(): string {
    return this.parts.join("");
  }
}

const ERRNO_CODES = new Set(["ENOENT", "EISDIR", "ENOTDIR", "EACCES", "EFBIG", "ELOOP", "ENOSPC"]);

function errnoCode(code: unknown): SandboxFileError["code"] {
  if (code === "EPERM" || code === "EROFS") return "EACCES";
  if (code === "EDQUOT") return "ENOSPC";
  return typeof code === "string" && ERRNO_CODES.has(code) ? (code as SandboxFileError["code"]) : "EIO";
}

const STAT_TYPES = new Set(["file", "directory", "symlink", "other"]);

function toStat(value: unknown): FileStat | null {
  if (typeof value !== "object" || value === null) return null;
  const { type, size, mtimeMs } = value as Message;
  if (typeof type !== "string" || !STAT_TYPES.has(type)) return null;
  if (typeof size !== "number" || typeof mtimeMs !== "number") return null;
  return { type: type as FileStat["type"], size, mtimeMs };
}

function parse(line: string): Message | null {
  try {
    const msg: unknown = JSON.parse(line);
    return typeof msg === "object" && msg !== null ? (msg as Message) : null;
  } catch {
    return null;
  }
}

function badReply(path: string): SandboxUnavailableError {
  return new SandboxUnavailableError(`executor sent a malformed reply for ${path}`);
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // ignored: see the caller
  }
}
