/**
 * The composition root starts the parts a mode needs in a known order and stops every one of
 * them in reverse: after `stop()` the process holds no handle it did not hold before (sockets,
 * servers, timers such as the approval sweeper's), and a second `stop()` does nothing more.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeMode, startService } from "../../src/cli/compose.js";
import { createLogger } from "../../src/log.js";
import { dropRedisKeys, testConfig } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";
import { pollUntil } from "../support/wait-for-job.js";

const BASE = ["database", "redis", "event bus", "queue", "webhook queue", "mcp clients", "key streams"];
const WORKER = ["worker", "webhook delivery", "approval sweeper", "reconciler", "pruner"];
const EXPECTED: Record<ServeMode, string[]> = {
  serve: [...BASE, ...WORKER, "session mcp endpoint", "http server"],
  api: [...BASE, "session mcp endpoint", "http server"],
  worker: [...BASE, ...WORKER, "system http server"],
};

/** The process's open handles by kind (sockets, servers, timers, …). */
function handles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** Kinds of which there are more now than in `before`. */
function leftOpen(before: Record<string, number>): Record<string, number> {
  const now = handles();
  return Object.fromEntries(
    Object.entries(now)
      .filter(([kind, n]) => n > (before[kind] ?? 0))
      .map(([kind, n]) => [kind, n - (before[kind] ?? 0)]),
  );
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function freshConfig(extra: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "tsc-"));
  const config = testConfig(dataDir, extra);
  cleanups.push(async () => {
    await dropRedisKeys(config);
    rmSync(dataDir, { recursive: true, force: true });
  });
  return config;
}

describe("the composed service", () => {
  for (const mode of ["serve", "api", "worker"] as const) {
    it(`${mode}: starts its parts in order and stops all of them in reverse, once`, async () => {
      const config = freshConfig();
      const errors: string[] = [];
      const logger = createLogger("silent");
      const origError = logger.error.bind(logger);
      // The approval sweeper logs when a tick fails: after stop (database closed) a tick would.
      logger.error = ((obj: unknown, msg?: string) => {
        errors.push(String(msg ?? obj));
        return origError(obj as never, msg as never);
      }) as typeof logger.error;
      const before = handles();
      const service = await startService(config, mode, {
        logger,
        sandboxes: new NullSandboxProvider(),
        approvalSweepMs: 20,
      });
      expect(service.parts.started).toEqual(EXPECTED[mode]);
      const open = service.url ?? service.workerUrl;
      expect((await fetch(`${open}/healthz`)).status).toBe(200);

      await service.stop();
      expect(service.parts.stopped).toEqual([...EXPECTED[mode]].reverse());
      await service.stop();
      expect(service.parts.stopped).toEqual([...EXPECTED[mode]].reverse());

      // Sockets finish closing on the next turns of the event loop; nothing may stay.
      await pollUntil(
        () => leftOpen(before),
        (extra) => Object.keys(extra).length === 0,
        { timeoutMs: 10_000, intervalMs: 50, what: "every handle the service opened to close" },
      );
      await expect(fetch(`${open}/healthz`)).rejects.toThrow();
      // Several sweep intervals later, no sweep ran against the closed database.
      await new Promise((r) => setTimeout(r, 200));
      expect(errors).toEqual([]);
    });
  }

  it("a start that fails half-way (port in use) stops what it had started", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    cleanups.push(() => new Promise<void>((r) => blocker.close(() => r())));
    const port = (blocker.address() as { port: number }).port;
    const config = freshConfig({ PORT: String(port) });
    const before = handles();
    await expect(
      startService(config, "api", { logger: createLogger("silent"), sandboxes: new NullSandboxProvider() }),
    ).rejects.toThrow(/EADDRINUSE/);
    await pollUntil(
      () => leftOpen(before),
      (extra) => Object.keys(extra).length === 0,
      { timeoutMs: 10_000, intervalMs: 50, what: "every handle the failed start opened to close" },
    );
  });
});
