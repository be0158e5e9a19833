/** Builds a ToolRunContext over the fake sandbox (or any sandbox) for toolkit tests. */
import { SANDBOX_HOME, SANDBOX_WORKSPACE, type Sandbox } from "../../src/sandbox/sandbox.js";
import type { ToolChunk } from "../../src/toolkit/content.js";
import type { ToolRunContext } from "../../src/toolkit/run-context.js";
import { FakeSandbox } from "../support/fake-sandbox.js";
import { MemoryReadCache } from "../support/memory-read-cache.js";

/** A context plus what the tools reported through it. */
export interface TestContext {
  ctx: ToolRunContext;
  sandbox: FakeSandbox;
  cache: MemoryReadCache;
  chunks: ToolChunk[];
  cwdChanges: string[];
  abort: AbortController;
}

/** A context over `sandbox` with its container layout (`/workspace`, `/home/agent`); `setCwd` moves `cwd`. */
export function contextFor(sandbox: Sandbox, overrides: Partial<ToolRunContext> = {}): ToolRunContext {
  const ctx: ToolRunContext = {
    sessionId: sandbox.sessionId,
    sandbox,
    cwd: SANDBOX_WORKSPACE,
    home: SANDBOX_HOME,
    workingDirectories: [],
    workingDirectoryRoots: [SANDBOX_WORKSPACE, "/tmp"],
    mode: "default",
    readCache: new MemoryReadCache(),
    signal: new AbortController().signal,
    autoAllowedEdit: false,
    setCwd(cwd) {
      ctx.cwd = cwd;
    },
    ...overrides,
  };
  return ctx;
}

/** A fresh fake sandbox and context; `cwd` moves when Bash reports a new directory. */
export function makeContext(
  overrides: Partial<ToolRunContext> = {},
  sandbox = FakeSandbox.create(),
): TestContext {
  const cache = new MemoryReadCache();
  const chunks: ToolChunk[] = [];
  const cwdChanges: string[] = [];
  const abort = new AbortController();
  const ctx = contextFor(sandbox, {
    cwd: sandbox.workspace,
    workspace: sandbox.workspace,
    home: sandbox.home,
    readCache: cache,
    signal: abort.signal,
    setCwd(cwd) {
      cwdChanges.push(cwd);
      ctx.cwd = cwd;
    },
    onChunk(c) {
      chunks.push(c);
    },
    ...overrides,
  });
  return { ctx, sandbox, cache, chunks, cwdChanges, abort };
}
