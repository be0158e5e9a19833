/** Builds a ToolRunContext over the fake sandbox for toolkit tests. */
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

/** A fresh fake sandbox and context; `cwd` moves when Bash reports a new directory. */
export function makeContext(
  overrides: Partial<ToolRunContext> = {},
  sandbox = FakeSandbox.create(),
): TestContext {
  const cache = new MemoryReadCache();
  const chunks: ToolChunk[] = [];
  const cwdChanges: string[] = [];
  const abort = new AbortController();
  const ctx: ToolRunContext = {
    sessionId: sandbox.sessionId,
    sandbox,
    cwd: sandbox.workspace,
    home: sandbox.home,
    workingDirectories: [],
    mode: "default",
    readCache: cache,
    signal: abort.signal,
    autoAllowedEdit: false,
    setCwd(cwd) {
      cwdChanges.push(cwd);
      ctx.cwd = cwd;
    },
    onChunk(c) {
      chunks.push(c);
    },
    ...overrides,
  };
  return { ctx, sandbox, cache, chunks, cwdChanges, abort };
}
