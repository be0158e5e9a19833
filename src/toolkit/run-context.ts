import type { PermissionMode } from "../permission/types.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { ToolChunk } from "./content.js";
import type { ReadCacheStore } from "./read-cache.js";
import type { TaskStore } from "./tasks/task.js";

/**
 * What a tool's `call` receives besides its input when it runs for a session: the sandbox to
 * act in and the session's state. Built by the worker for every job.
 */
export interface ToolRunContext {
  sessionId: string;
  sandbox: Sandbox;
  /** The session's current working directory inside the sandbox (Bash may move it). */
  cwd: string;
  /**
   * Where the session's cwd starts, and (with `workingDirectories`) where Bash may leave it:
   * `/workspace` unless said (a test's fake sandbox has it elsewhere).
   */
  workspace?: string;
  home: string;
  workingDirectories: string[];
  /**
   * Where a working directory (or the cwd) may really be: at run time the sandbox resolves them,
   * and one whose real path lies outside every root (a link into the home) contains nothing.
   * The service gives the tenant's `workingDirectoryRoots` and the workspace.
   */
  workingDirectoryRoots: readonly string[];
  mode: PermissionMode;
  readCache: ReadCacheStore;
  /** Aborted on cancel; tools must stop and return what they have. */
  signal: AbortSignal;
  /**
   * True when the call was auto-allowed by ACCEPT_EDITS: the run-time path re-check must then also keep the
   * resolved target inside the working directories
   * (docs/permission.md#stricter-symlinks-are-checked-in-the-sandbox).
   */
  autoAllowedEdit: boolean;
  /**
   * True when the call was allowed *because* it is read-only (no rule, no approval): commands
   * then run as the sandbox's reader identity, which cannot write, so a mis-analysed command fails
   * instead of writing.
   */
  readOnlyCall?: boolean;
  /** Bash reports a changed working directory here; the service persists it. */
  setCwd(cwd: string): void | Promise<void>;
  /** Streaming: every chunk as it is produced, before accumulation. */
  onChunk?(chunk: ToolChunk): void;
  /** The session's active non-basic tool groups (`basic` is implicit); absent means none. */
  activeGroups?: readonly string[];
  /** `reset_tools` reports the new active set here; the service persists it per session. */
  setActiveGroups?(groups: string[]): void | Promise<void>;
  /**
   * The call and attempt this run is (the service's worker gives it), for effects that leave the
   * sandbox (MCP over HTTP): `key` is the same for every attempt of the call, `run` grows with
   * each take-over, and `fence` rejects once another attempt holds the call (asked right before
   * a request; the service then discards whatever the run produces).
   */
  attempt?: RunAttemptInfo;
  /** The session's durable task list, used by TaskCreate/Get/List/Update. */
  taskStore?: TaskStore;
  /**
   * The worker's crash guard reports a built-in tool's unexpected exception here (the call then
   * fails with a generic text); the guard is one per process, the report is the call's.
   */
  reportCrash?(err: unknown): void;
}

/** ToolRunContext.attempt. */
export interface RunAttemptInfo {
  key: string;
  run: number;
  fence(): Promise<void>;
}
