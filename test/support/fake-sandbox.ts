/**
 * A hand-written fake `Sandbox` for fast toolkit unit tests: a temp directory on the host whose
 * `workspace` and `home` stand in for /workspace and /home/agent. The fake's "container paths"
 * are these host paths (no path translation, so Bash's `pwd -P` and file tools agree); exec
 * runs `bash` on the host with process-group kill, streaming and byte caps. Any other program
 * (rg, python3: a fresh CI host has neither) must be scripted in `programs`; the real ones are
 * tested in the sandbox image by `*.int.test.ts`. Not a security boundary.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { lstat, mkdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import {
  type ExecRequest,
  type ExecResult,
  type FileStat,
  type OutputStream,
  type ReadFileResult,
  type Sandbox,
  SandboxFileError,
} from "../../src/sandbox/sandbox.js";

/** A scripted program: sees the request, answers the parts of the result it cares about. */
export type FakeProgram = (req: ExecRequest) => Partial<ExecResult>;

/** What unit tests may run on the host: the shell the test scripts themselves need. */
const HOST_PROGRAMS = new Set(["bash"]);

/** The fake; create with `FakeSandbox.create()`, clean up with `dispose()`. */
export class FakeSandbox implements Sandbox {
  readonly execLog: ExecRequest[] = [];
  /** Programs answered without spawning anything, by argv[0]. */
  readonly programs = new Map<string, FakeProgram>();

  private constructor(
    readonly sessionId: string,
    readonly root: string,
    readonly workspace: string,
    readonly home: string,
  ) {}

  /** A fresh temp root with `workspace/` and `home/`. */
  static create(sessionId = "ses_test"): FakeSandbox {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "toolshed-fake-")));
    const [workspace, home] = [join(root, "workspace"), join(root, "home")];
    mkdirSync(workspace);
    mkdirSync(home);
    return new FakeSandbox(sessionId, root, workspace, home);
  }

  /** Removes the temp root. */
  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }

  exec(req: ExecRequest): Promise<ExecResult> {
    this.execLog.push(req);
    const name = req.argv[0] ?? "";
    const program = this.programs.get(name);
    if (program) return Promise.resolve(execResult(program(req)));
    if (!HOST_PROGRAMS.has(name)) {
      return Promise.reject(
        new Error(
          `FakeSandbox does not run '${name}' on the host: script it in programs, or test it in *.int.test.ts`,
        ),
      );
    }
    return runOnHost(req);
  }

  async readFile(path: string, opts: { maxBytes?: number } = {}): Promise<ReadFileResult> {
    const st = await stat(path).catch((e) => rethrow(e, path));
    if (st.isDirectory()) throw new SandboxFileError("EISDIR", path, `Is a directory: ${path}`);
    if (opts.maxBytes !== undefined && st.size > opts.maxBytes) {
      throw new SandboxFileError("EFBIG", path, `File too large: ${path} (${st.size} bytes)`);
    }
    const data = await readFile(path).catch((e) => rethrow(e, path));
    return { data, mtimeMs: st.mtimeMs, size: data.length };
  }

  async writeFile(path: string, data: Buffer | string): Promise<FileStat> {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, data).catch((e) => rethrow(e, path));
    return toFileStat(await stat(path));
  }

  async stat(path: string): Promise<FileStat | null> {
    try {
      return toFileStat(await lstat(path));
    } catch {
      return null;
    }
  }

  /** Like the Docker executor: realpath, or for a missing leaf its parent resolved plus the basename. */
  async realPath(path: string): Promise<string> {
    try {
      return await realpath(path);
    } catch (error) {
      const parent = dirname(path);
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || parent === path) throw error;
      return join(await this.realPath(parent), basename(path));
    }
  }
}

/** A finished command's result: exit 0 and no output unless `parts` says otherwise. */
export function execResult(parts: Partial<ExecResult> = {}): ExecResult {
  return {
    exitCode: 0,
    stdout: "",
    stderr: "",
    timedOut: false,
    cancelled: false,
    truncated: false,
    durationMs: 1,
    ...parts,
  };
}

function toFileStat(st: Awaited<ReturnType<typeof lstat>>): FileStat {
  const type = st.isSymbolicLink()
    ? "symlink"
    : st.isDirectory()
      ? "directory"
      : st.isFile()
        ? "file"
        : "other";
  return { type, size: Number(st.size), mtimeMs: Number(st.mtimeMs) };
}

function rethrow(error: NodeJS.ErrnoException, path: string): never {
  const known = ["ENOENT", "EISDIR", "ENOTDIR", "EACCES", "ELOOP"] as const;
  const code = known.find((c) => c === error.code) ?? "EIO";
  throw new SandboxFileError(code, path, error.message);
}

function runOnHost(req: ExecRequest): Promise<ExecResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const [cmd, ...args] = req.argv;
    // Like the executor: descriptor 9 carries the final working directory when asked for.
    const extra = req.reportCwd ? ["ignore", "ignore", "ignore", "ignore", "ignore", "ignore", "pipe"] : [];
    const child = spawn(cmd ?? "", args, {
      cwd: req.cwd,
      env: { ...process.env, ...req.env },
      detached: true,
      stdio: ["pipe", "pipe", "pipe", ...extra] as ["pipe", "pipe", "pipe"],
    });
    let cwdText = "";
    const fd9 = (child.stdio as unknown as (NodeJS.ReadableStream | null)[])[9];
    fd9?.on("data", (b: Buffer) => {
      cwdText += b.toString("utf8");
    });
    const kept = { stdout: "", stderr: "" };
    const bytes = { stdout: 0, stderr: 0 };
    let truncated = false;
    let timedOut = false;
    let cancelled = false;
    const killGroup = (): void => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is already gone.
      }
    };
    const collect = (stream: OutputStream) => {
      const decoder = new StringDecoder("utf8");
      return (buf: Buffer) => {
        req.onOutput?.(stream, decoder.write(buf));
        const room = Math.max(0, req.maxOutputBytes - bytes[stream]);
        if (buf.length > room) truncated = true;
        kept[stream] += buf.subarray(0, room).toString("utf8");
        bytes[stream] += Math.min(buf.length, room);
      };
    };
    child.stdout.on("data", collect("stdout"));
    child.stderr.on("data", collect("stderr"));
    child.stdin.end(req.stdin ?? "");
    child.stdin.on("error", () => undefined);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, req.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      killGroup();
    };
    if (req.signal?.aborted) onAbort();
    req.signal?.addEventListener("abort", onAbort, { once: true });
    const finish = (exitCode: number | null, extraErr = ""): void => {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode: timedOut || cancelled ? null : exitCode,
        stdout: kept.stdout,
        stderr: kept.stderr + extraErr,
        timedOut,
        cancelled,
        truncated,
        durationMs: Date.now() - started,
        ...(cwdText.trim() ? { cwd: cwdText.trim() } : {}),
      });
    };
    child.on("error", (e) => finish(127, e.message));
    child.on("close", (code) => finish(code));
  });
}
