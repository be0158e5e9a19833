import { EventEmitter } from "node:events";
import { Writable } from "node:stream";
import { expect, it } from "vitest";
import { workerErrorLog } from "../../src/jobs/worker-errors.js";
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
