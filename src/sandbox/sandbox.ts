/**
 * The narrow interface every tool runs against. `src/sandbox/docker-*` implements it with one
 * hardened container per session; tests may use a hand-written fake. Paths are container paths.
 */

export type OutputStream = "stdout" | "stderr";

export interface ExecRequest {
  /** argv, no shell: tools that want a shell pass ["bash", "-c", cmd]. */
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  /** Wall clock; on expiry the whole process group is killed and partial output returned. */
  timeoutMs: number;
  /** Bytes kept per stream; the rest is drained and dropped (never buffered), `truncated` set. */
  maxOutputBytes: number;
  /** Aborting kills the process group (cancel); the result has `cancelled: true`. */
  signal?: AbortSignal;
  /** Called with each piece of output as it arrives (for streaming), before capping. */
  onOutput?: (stream: OutputStream, data: string) => void;
  /**
   * Who runs it: `agent` (default) may write the workspace and home; `reader`, for calls allowed
   * because they are read-only, cannot write either; `editor`, for calls auto-allowed by
   * accept_edits, may write the workspace only. Nothing a reader or editor starts outlives the call.
   */
  identity?: ExecIdentity;
  /** Makes the call run at most once: sent again (a worker took the job over), it re-attaches. */
  callKey?: string;
  /** Opens descriptor 9 for the command to write its final working directory to (`cwd`). */
  reportCwd?: boolean;
}

export type ExecIdentity = "agent" | "reader" | "editor";

/** A process of the call still running after it ended normally (it lives until the session stops). */
export interface LeftoverProcess {
  pid: number;
  cmd: string;
}

export interface ExecResult {
  /** null when killed (timeout / cancel) before it exited. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  truncated: boolean;
  durationMs: number;
  /** What the command wrote to descriptor 9 (with `reportCwd`). */
  cwd?: string;
  /** Processes the call left running after a normal end (the first 20), and how many. */
  leftover?: LeftoverProcess[];
  leftoverCount?: number;
  /** Processes killed when the call ended (timeout, cancel, or a read-only call's leftovers). */
  killed?: number;
}

/** Options of the file operations: a key makes the operation happen at most once. */
export interface FileOpOptions {
  callKey?: string;
}

/**
 * A long-lived process in the sandbox (stdio MCP servers); see `Sandbox.spawnProcess`. It runs as
 * the MCP identity: the agent can neither signal it nor read its environment (its secrets).
 */
export interface SpawnRequest {
  /** argv, no shell. */
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Every piece of output as it arrives; nothing is buffered or capped for the caller. */
  onOutput: (stream: OutputStream, data: string) => void;
}

/** How a spawned process ended; `lost` when the sandbox went away before it reported. */
export interface ProcessExit {
  /** null when killed or lost. */
  exitCode: number | null;
  signal: string | null;
  lost: boolean;
}

/** A running process: text to its stdin, kill its whole group, and its end. */
export interface SandboxProcess {
  write(data: string): void;
  /** Closes stdin. */
  end(): void;
  /** Kills the process group (also done when the connection drops). */
  kill(): void;
  readonly exited: Promise<ProcessExit>;
}

export interface FileStat {
  type: "file" | "directory" | "symlink" | "other";
  size: number;
  /** Modification time in ms since epoch, as the sandbox sees it. */
  mtimeMs: number;
}

export interface ReadFileResult {
  data: Buffer;
  mtimeMs: number;
  size: number;
  /** The file's resolved path (symlinks followed), when the sandbox reports it in the same trip. */
  realPath?: string;
}

/** Thrown by file operations; `code` follows errno names. */
export class SandboxFileError extends Error {
  constructor(
    readonly code: "ENOENT" | "EISDIR" | "ENOTDIR" | "EACCES" | "EFBIG" | "ELOOP" | "ENOSPC" | "EIO",
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "SandboxFileError";
  }
}

/**
 * The sandbox could not be reached or created: the worker retries it; the API answers 503
 * SANDBOX_UNAVAILABLE (`asSandboxUnavailable` in src/errors.ts matches this class's name).
 */
export class SandboxUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SandboxUnavailableError";
  }
}

export interface Sandbox {
  readonly sessionId: string;
  exec(req: ExecRequest): Promise<ExecResult>;
  /** Reads a whole file (follows symlinks); rejects past `maxBytes` with EFBIG. */
  readFile(path: string, opts?: { maxBytes?: number } & FileOpOptions): Promise<ReadFileResult>;
  /** Writes a whole file, creating parent directories; returns the new stat. */
  writeFile(path: string, data: Buffer | string, opts?: FileOpOptions): Promise<FileStat>;
  /** lstat-like; null when the path does not exist. */
  stat(path: string, opts?: FileOpOptions): Promise<FileStat | null>;
  /** The fully resolved path (symlinks followed, `..` collapsed); for a missing file, its
   * parent resolved plus the basename. */
  realPath(path: string, opts?: FileOpOptions): Promise<string>;
  /** Starts a long-lived process (optional: fakes may leave it out); resolves once it runs. */
  spawnProcess?(req: SpawnRequest): Promise<SandboxProcess>;
  /**
   * Which executor instance answers (changes when the container restarts): a job that finds a
   * different one than its earlier attempt used cannot know what that attempt did. `live`
   * (default) asks through a round trip; otherwise the last instance that proved itself, which may
   * have just died (fine for recording: a stale id can only make a later takeover more careful).
   */
  instanceId?(opts?: { live?: boolean }): Promise<string>;
  /** The job's result is stored: the sandbox may forget the outcomes it kept under its keys. */
  acknowledge?(jobId: string): void;
}

export interface SessionSandboxSpec {
  sessionId: string;
  tenantId: string;
  /** Read-only mounts (skills), host path → container path. */
  readOnlyMounts?: { hostPath: string; containerPath: string }[];
  /** The tenant's own image, environment and limits; applied when the container is created. */
  settings?: SessionSandboxSettings;
}

/**
 * Per-tenant sandbox settings, already checked against the platform's allowlist and caps by the
 * caller. `env` reaches every command the sandbox runs (sent with each request, never stored in
 * the container's configuration); the rest applies to containers created from now on.
 */
export interface SessionSandboxSettings {
  image?: string;
  env?: Record<string, string>;
  memoryBytes?: number;
  nanoCpus?: number;
  pids?: number;
  /** Size of a new session's workspace volume (with workspace quotas on). */
  diskBytes?: number;
}

/**
 * Told of every request a sandbox sends its executor (the host's metrics port: the sandbox layer
 * knows nothing of Prometheus): the operation, how long until the answer, and whether one came.
 */
export type RoundTripObserver = (op: SandboxOp, seconds: number, ok: boolean) => void;

export type SandboxOp = "exec" | "read" | "write" | "stat" | "realpath" | "ping";

/** Creates, finds, stops and removes session sandboxes. */
export interface SandboxProvider {
  /** The running sandbox of a session, created or restarted on the same workspace if needed. */
  acquire(spec: SessionSandboxSpec): Promise<Sandbox>;
  /** Stops the container (idle); the workspace stays. */
  stop(sessionId: string): Promise<void>;
  /** Removes the container and the workspace; calls in flight do not start them again (a new `acquire` does). */
  remove(sessionId: string): Promise<void>;
  /** Removes containers labelled with this service's id that no live session owns. */
  reapOrphans(liveSessionIds: Set<string>): Promise<number>;
  close(): Promise<void>;
  ping?(): Promise<void>;
  /** How many session sandboxes this process holds running (for metrics). */
  liveCount?(): number;
  /**
   * The executor instance of the session's running sandbox as last proven here, without a round
   * trip (undefined: none known here). A call about to run records it up front (instanceId).
   */
  knownInstance?(sessionId: string): string | undefined;
}

/** The sandbox's fixed layout. */
export const SANDBOX_WORKSPACE = "/workspace";
export const SANDBOX_HOME = "/home/agent";
export const SANDBOX_USER = "agent";

/**
 * The uids inside a sandbox, all above the host's users (no host account has them): the agent,
 * the group of read-only calls, stdio MCP servers, and a pool of one uid per read-only call.
 */
export interface SandboxIdentities {
  agent: number;
  editor: number;
  readerGroup: number;
  mcp: number;
  readerBase: number;
  readerCount: number;
  /** stdio MCP servers: `mcp`, then mcpBase .. mcpBase + mcpCount - 2, one uid per running server. */
  mcpBase: number;
  mcpCount: number;
}

/** The identities laid out from one base uid (SANDBOX_UID_BASE). */
export function identitiesFrom(base: number): SandboxIdentities {
  return {
    agent: base,
    readerGroup: base + 1,
    mcp: base + 2,
    editor: base + 3,
    readerBase: base + 10,
    readerCount: 16,
    mcpBase: base + 32,
    mcpCount: 64,
  };
}

export const DEFAULT_UID_BASE = 100000;
/** The agent's uid with the default base. */
export const SANDBOX_UID = DEFAULT_UID_BASE;
