/**
 * A ToolRunContext for programs that use the toolkit as a library, outside the service: state
 * (cwd, active groups, tasks, read cache) lives in memory on the context itself. Without a
 * sandbox, tools that touch files or run commands fail with SandboxUnavailableError.
 */
import {
  SANDBOX_HOME,
  SANDBOX_WORKSPACE,
  type Sandbox,
  SandboxUnavailableError,
} from "../sandbox/sandbox.js";
import { MemoryReadCacheStore } from "./memory-read-cache.js";
import type { ToolRunContext } from "./run-context.js";
import { MemoryTaskStore } from "./tasks/memory-task-store.js";

/** A fresh in-memory context; `overrides` replace any field (e.g. a real `sandbox`). */
export function createHostContext(overrides: Partial<ToolRunContext> = {}): ToolRunContext {
  const ctx: ToolRunContext = {
    sessionId: "host",
    sandbox: noSandbox(overrides.sessionId ?? "host"),
    cwd: SANDBOX_WORKSPACE,
    home: SANDBOX_HOME,
    workingDirectories: [],
    // A program using the toolkit itself has no tenant to bound its directories.
    workingDirectoryRoots: ["/"],
    mode: "default",
    readCache: new MemoryReadCacheStore(),
    signal: new AbortController().signal,
    autoAllowedEdit: false,
    setCwd(cwd) {
      ctx.cwd = cwd;
    },
    activeGroups: [],
    setActiveGroups(groups) {
      ctx.activeGroups = groups;
    },
    taskStore: new MemoryTaskStore(),
    ...overrides,
  };
  return ctx;
}

function noSandbox(sessionId: string): Sandbox {
  const refuse = async (): Promise<never> => {
    throw new SandboxUnavailableError("This host context has no sandbox; pass one to createHostContext.");
  };
  return { sessionId, exec: refuse, readFile: refuse, writeFile: refuse, stat: refuse, realPath: refuse };
}
