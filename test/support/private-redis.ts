/**
 * A Redis server of the test's own, on a free loopback port and without persistence, so that a
 * test may kill it and start it again empty (the shared Redis is never touched).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Redis } from "ioredis";
import { freePort } from "./free-port.js";
import { pollUntil } from "./wait-for-job.js";

export interface PrivateRedis {
  url: string;
  /** Kills the server (SIGKILL: its data is gone). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers. `true` thaws it. */
  freeze(frozen: boolean): void;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let proc: ChildProcess | undefined;
  const start = async () => {
    proc = spawn(
      "redis-server",
      ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", "--dir", "/tmp"],
      { stdio: "ignore" },
    );
    // Ready when it answers PING (bounded: 10 s).
    const answers = async () => {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on("error", () => {});
      const ok = await probe.connect().then(
        () => probe.ping().then(() => true),
        () => false,
      );
      probe.disconnect();
      return ok;
    };
    await pollUntil(answers, (ok) => ok, { timeoutMs: 10_000, what: `redis-server on port ${port}` });
  };
  await start();
  return {
    url,
    start,
    freeze(frozen) {
      proc?.kill(frozen ? "SIGSTOP" : "SIGCONT");
    },
    async kill() {
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      const exited = new Promise((r) => p.once("exit", r));
      p.kill("SIGKILL");
      await exited;
    },
  };
}
