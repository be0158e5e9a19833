import { EventEmitter } from "node:events";
import { Writable } from "node:stream";
import { expect, it } from "vitest";
import { pauseWhileRedisFull, workerErrorLog } from "../../src/jobs/worker-errors.js";
import { createLogger } from "../../src/log.js";

function captured() {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger("info", sink), lines };
}

const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" });

it("logs a Redis outage's connection errors once per worker until its connection is ready again", () => {
  const { logger, lines } = captured();
  const connection = new EventEmitter();
  const log = workerErrorLog(logger, connection, "worker error");
  for (let i = 0; i < 20; i++) log(refused());
  log(new Error("Connection is closed."));
  expect(lines.map((l) => [l.level, l.msg])).toEqual([
    [40, "worker error: redis unreachable (not logged again until it is back)"],
  ]);
  connection.emit("ready");
  log(refused());
  log(refused());
  expect(lines).toHaveLength(2);
});

it("logs every other error at error level, outage or not", () => {
  const { logger, lines } = captured();
  const log = workerErrorLog(logger, new EventEmitter(), "worker error");
  log(refused());
  log(new Error("ERR Error running script: bad argument"));
  log(new Error("ERR Error running script: bad argument"));
  expect(lines.map((l) => l.level)).toEqual([40, 50, 50]);
});

it("pauses a worker whose job fetch Redis refuses as full, and resumes it once a write goes through", async () => {
  const { logger, lines } = captured();
  const calls: string[] = [];
  const worker = {
    pause: async (doNotWaitActive?: boolean) => void calls.push(`pause ${doNotWaitActive}`),
    resume: () => void calls.push("resume"),
  };
  let room = false;
  let probes = 0;
  const probe = async () => {
    probes++;
    if (!room) throw new Error("OOM command not allowed when used memory > 'maxmemory'.");
  };
  const closing = new AbortController();
  const full = pauseWhileRedisFull(worker, {
    logger,
    probe,
    closing: closing.signal,
    name: "w",
    probeEveryMs: 5,
  });
  const oom = new Error(
    "OOM command not allowed when used memory > 'maxmemory'. script: 1, on @user_script:217.",
  );
  // The burst BullMQ emits: taken, paused once, said once.
  for (let i = 0; i < 50; i++) expect(full(oom)).toBe(true);
  expect(full(refused())).toBe(false);
  expect(calls).toEqual(["pause true"]);
  await new Promise((r) => setTimeout(r, 50));
  expect(probes).toBeGreaterThan(1);
  expect(calls).toEqual(["pause true"]);
  room = true;
  await new Promise((r) => setTimeout(r, 50));
  expect(calls).toEqual(["pause true", "resume"]);
  expect(lines.map((l) => l.msg)).toEqual([
    "w: redis is full (maxmemory reached): no new job is taken until it has room (free memory or raise maxmemory)",
    "w: redis has room again",
  ]);
  // Full again: paused again; a close meanwhile leaves it paused (not resumed under the close).
  room = false;
  expect(full(oom)).toBe(true);
  closing.abort();
  room = true;
  await new Promise((r) => setTimeout(r, 50));
  expect(calls).toEqual(["pause true", "resume", "pause true"]);
});
