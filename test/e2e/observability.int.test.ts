/**
 * Observability through the real server, queue, worker and sandbox: one access-log line per
 * request (read from the pino destination), the Prometheus families with their labels after a
 * real call, a lone worker's own /metrics, and a W3C traceparent carried from the request to the
 * job's log lines in the worker.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { logLines } from "../support/log-lines.js";
import { pollUntil } from "../support/wait-for-job.js";

const { lines, sink } = logLines();

let h: Harness;
let t: Awaited<ReturnType<typeof seedBashTenant>>;
let sid: string;

beforeAll(async () => {
  h = await startHarness({ start: { logger: createLogger("info", sink) } });
  t = await seedBashTenant(h.call);
  sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
});

afterAll(async () => {
  await h?.stop();
});

describe("access log", () => {
  it("100 requests give 100 lines with request id, tenant, route, status and duration; no secrets", async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `obs-${i}`);
    for (const [i, id] of ids.entries()) {
      const path = i % 2 === 0 ? `/v1/sessions/${sid}` : `/v1/sessions/${sid}/nope`;
      await h.call("GET", path, { key: t.agentKey, headers: { "x-request-id": id } });
    }
    const access = await pollUntil(
      () => lines.filter((l) => l.msg === "request" && ids.includes(l.requestId)),
      (found) => found.length >= 100,
      { what: "100 access lines", timeoutMs: 10_000 },
    );
    expect(access).toHaveLength(100);
    expect(new Set(access.map((l) => l.requestId)).size).toBe(100);
    expect(access[0]).toMatchObject({
      requestId: "obs-0",
      tenantId: t.tenantId,
      method: "GET",
      route: "/v1/sessions/{sid}",
      status: 200,
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      durationMs: expect.any(Number),
    });
    expect(access[1]).toMatchObject({ route: "unmatched", status: 404 });
    const text = JSON.stringify(access);
    expect(text).not.toContain(t.agentKey);
    expect(text.toLowerCase()).not.toContain("authorization");
  });
});

describe("traceparent and metrics", () => {
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  let jobId: string;

  beforeAll(async () => {
    const res = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command: "echo traced" } },
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, "x-request-id": "obs-traced" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.job.status).toBe("succeeded");
    jobId = res.body.job.id;
    const header = res.headers.get("traceparent") ?? "";
    expect(header).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(header).not.toContain("00f067aa0ba902b7");
  });

  it("the request's lines and the worker's lines for its job carry the caller's trace id", async () => {
    const transitions = await pollUntil(
      () => lines.filter((l) => l.msg === "job transition" && l.jobId === jobId),
      (found) => found.some((l) => l.status === "succeeded"),
      { what: "the job's transition lines", timeoutMs: 10_000 },
    );
    expect(transitions.map((l) => l.status)).toEqual(["queued", "running", "succeeded"]);
    for (const l of transitions) expect(l.traceId).toBe(traceId);
    expect(transitions[0]).toMatchObject({ tenantId: t.tenantId, sessionId: sid, tool: "Bash" });
    const access = lines.find((l) => l.msg === "request" && l.requestId === "obs-traced");
    expect(access).toMatchObject({ traceId, route: "/v1/sessions/{sid}/calls", status: 200 });
  });

  it("a malformed or all-zero traceparent starts a new trace", async () => {
    for (const bad of [
      `00-${traceId}-00f067aa0ba902b7-01-extra`,
      `ff-${traceId}-00f067aa0ba902b7-01`,
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
      `00-${traceId}-${"0".repeat(16)}-01`,
      `00-${traceId.toUpperCase()}-00f067aa0ba902b7-01`,
    ]) {
      const res = await h.call("GET", "/healthz", { headers: { traceparent: bad } });
      const header = res.headers.get("traceparent") ?? "";
      expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
      expect(header).not.toContain(traceId);
    }
  });

  it("/metrics has the latency, job, executor, queue and sandbox families with their labels", async () => {
    const res = await h.call("GET", "/metrics");
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = res.body as string;
    expect(text).toMatch(
      /toolshed_http_request_duration_seconds_bucket\{[^}]*method="POST",route="\/v1\/sessions\/\{sid\}\/calls",status="200"/,
    );
    expect(text).not.toContain(`route="/v1/sessions/${sid}`);
    expect(text).toMatch(/toolshed_job_duration_seconds_count\{tool="Bash",outcome="succeeded"\} [1-9]/);
    expect(text).toMatch(/toolshed_executor_round_trip_seconds_count\{op="exec",outcome="ok"\} [1-9]/);
    // The placement queue and this worker host's own queue (calls-<hostId>).
    for (const queue of ["placement", 'calls-[^"]+'])
      for (const state of ["waiting", "active", "delayed"])
        expect(text).toMatch(new RegExp(`toolshed_queue_jobs\\{queue="${queue}",state="${state}"\\} \\d+`));
    expect(text).toMatch(/toolshed_sandboxes_live [1-9]/);
    expect(text).toMatch(/toolshed_jobs_finished_total\{status="succeeded"\} [1-9]/);
    expect(text).toMatch(/toolshed_http_requests_total\{method="GET",status="200"\} [1-9]/);
    expect(text).toContain("toolshed_process_rss_bytes");
  });

  it("a worker run alone serves its own /metrics", async () => {
    const worker = await h.start("worker", { logger: createLogger("silent") });
    try {
      expect(worker.workerUrl).toBeTruthy();
      const res = await fetch(`${worker.workerUrl}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toMatch(/toolshed_queue_jobs\{queue="calls-[^"]+",state="waiting"\} \d+/);
      expect(text).toContain("toolshed_sandboxes_live");
      expect(text).toContain("toolshed_executor_round_trip_seconds");
    } finally {
      await worker.stop();
    }
  });
});
