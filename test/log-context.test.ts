/**
 * The log context passed explicitly (src/log.ts): a logger made by `withLogContext` writes its
 * ids on every line, its children's too, under the line's own fields (never twice); a job's deps
 * log under its id and its submitting request's trace; the API's error handler logs under the
 * request's id and trace id (access-log.ts sets them).
 */
import { Writable } from "node:stream";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { accessLog } from "../src/api/access-log.js";
import type { AppEnv } from "../src/api/context.js";
import { errorResponse } from "../src/api/errors.js";
import { createLogger, logContextOf, withLogContext } from "../src/log.js";
import { jobDeps } from "../src/service/worker/job-deps.js";

function captured() {
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      raw.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const lines = () => raw.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger: createLogger("info", sink), raw, lines };
}

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

describe("withLogContext", () => {
  it("adds its ids to every line, its children's too; the service logger has none", () => {
    const { logger, lines } = captured();
    const job = withLogContext(logger, { jobId: "job_1", traceId: TRACE });
    job.info({ a: 1 }, "in the job");
    job.child({ part: "x" }).warn("in a child");
    withLogContext(job, { requestId: "req_1", traceId: undefined }).info("nested");
    logger.info("outside");
    expect(
      lines().map(({ msg, jobId, traceId, requestId, a, part }) => ({
        msg,
        jobId,
        traceId,
        requestId,
        a,
        part,
      })),
    ).toEqual([
      { msg: "in the job", jobId: "job_1", traceId: TRACE, a: 1 },
      { msg: "in a child", jobId: "job_1", traceId: TRACE, part: "x" },
      // An id left undefined keeps the parent's.
      { msg: "nested", jobId: "job_1", traceId: TRACE, requestId: "req_1" },
      { msg: "outside" },
    ]);
    expect(logContextOf(logger)).toEqual({});
  });

  it("a line naming an id itself writes it once, its own value", () => {
    const { logger, raw, lines } = captured();
    withLogContext(logger, { jobId: "job_1" }).info({ jobId: "job_2" }, "own");
    expect(raw[0]!.match(/"jobId"/g)).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ jobId: "job_2" });
  });

  it("a job's deps log under its id and trace; the service's deps are left as they were", () => {
    const { logger, lines } = captured();
    const deps = { logger, other: 1 };
    const forJob = jobDeps(deps, { id: "job_9", traceId: TRACE });
    forJob.logger.warn("step");
    jobDeps(deps, { id: "job_10", traceId: null }).logger.warn("untraced");
    deps.logger.info("service");
    expect(forJob.other).toBe(1);
    expect(lines().map(({ msg, jobId, traceId }) => ({ msg, jobId, traceId }))).toEqual([
      { msg: "step", jobId: "job_9", traceId: TRACE },
      { msg: "untraced", jobId: "job_10", traceId: undefined },
      { msg: "service", jobId: undefined, traceId: undefined },
    ]);
  });
});

describe("a request's lines", () => {
  it("the error handler logs under the request's id and trace id", async () => {
    const { logger, lines } = captured();
    const metrics = { inc: () => undefined, httpDuration: { observe: () => undefined } };
    const app = new Hono<AppEnv>();
    app.use(accessLog({ logger, metrics: metrics as never }));
    app.get("/boom", () => {
      throw new Error("boom");
    });
    app.onError((err, c) => errorResponse(c, err, logger));
    const res = await app.request("/boom", {
      headers: { "x-request-id": "req-ctx", traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
    });
    expect(res.status).toBe(500);
    const line = lines().find((l) => l.msg === "unhandled error");
    expect(line).toMatchObject({ requestId: "req-ctx", traceId: TRACE });
    expect(lines().find((l) => l.msg === "request")).toMatchObject({ requestId: "req-ctx", traceId: TRACE });
  });
});
