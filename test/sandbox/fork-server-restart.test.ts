import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil } from "../support/wait-for-job.js";

// A lost spawner is started again (fork-server.mjs#restartLater), but bounded: a spawner that
// dies at once, each time, is restarted five times within the minute and then left to Node's
// spawn. And one that started commands before it died leaves no "nothing alive" proof behind:
// their orphans went to the init, where no later spawner sees them. Stand-ins, real processes.
interface ForkServerLike {
  proc: { pid?: number } | null;
  restarts: number[];
  restartTimer: ReturnType<typeof setTimeout> | null;
  adopted: unknown;
  available: boolean;
  start(bin: string): Promise<boolean>;
  nothingAlive(): boolean;
}
const modulePath = "../../src/sandbox/executor/fork-server.mjs";
const { ForkServer } = (await import(modulePath)) as { ForkServer: new () => ForkServerLike };

describe("fork server: restart", () => {
  let dir: string;
  const servers: ForkServerLike[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fork-restart-"));
  });
  afterAll(async () => {
    for (const s of servers) if (s.restartTimer) clearTimeout(s.restartTimer);
    await rm(dir, { recursive: true, force: true });
  });

  const standIn = async (name: string, body: string) => {
    const bin = join(dir, name);
    await writeFile(bin, `#!/bin/sh\n${body}\n`);
    await chmod(bin, 0o755);
    const server = new ForkServer();
    servers.push(server);
    expect(await server.start(bin)).toBe(true);
    return server;
  };

  /** Its first restart has run, and the new spawner said R. */
  const restartedOnce = (server: ForkServerLike) =>
    pollUntil(
      () => server.restarts.length === 1 && server.adopted !== null,
      (ok) => ok,
      { timeoutMs: 20_000, intervalMs: 10, what: "the restarted spawner's R line" },
    );

  it("starts a spawner that keeps dying five times, then leaves it for the rest of the minute", async () => {
    const server = await standIn("dies", "exit 0");
    await pollUntil(
      () => server.restarts.length,
      (n) => n === 5 && server.proc === null && server.restartTimer !== null,
      { timeoutMs: 20_000, intervalMs: 10, what: "five restarts" },
    );
    // The sixth is due once the first restart has left the minute, not before.
    await new Promise((r) => setTimeout(r, 500));
    expect(server.restarts.length).toBe(5);
    expect(server.available).toBe(false);
  });

  it("gives no 'nothing alive' proof once a spawner that had started commands is lost", async () => {
    // Started a command (P), then died: the next one says R and has no child.
    const flag = join(dir, "once.flag");
    const server = await standIn(
      "once",
      `if [ -e ${flag} ]; then printf 'R\\n'; exec sleep 60; fi; touch ${flag}; printf 'R\\nP 1 4242\\n'; exit 0`,
    );
    await restartedOnce(server);
    expect(server.nothingAlive()).toBe(false);
    process.kill(server.proc!.pid!, "SIGKILL");
  });

  it("keeps the proof when the lost spawner had started nothing", async () => {
    const flag = join(dir, "idle.flag");
    const server = await standIn(
      "idle",
      `if [ -e ${flag} ]; then printf 'R\\n'; exec sleep 60; fi; touch ${flag}; exit 0`,
    );
    await restartedOnce(server);
    expect(server.nothingAlive()).toBe(true);
    process.kill(server.proc!.pid!, "SIGKILL");
  });
});
