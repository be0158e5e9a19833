/**
 * The service's Prometheus metrics (prom-client), one registry per service instance (tests run
 * several in one process). Counters keep their historic names; histograms time HTTP requests by
 * matched route, jobs by tool and outcome, and each request to a sandbox's executor; gauges read
 * the queue depth and the live sandboxes when scraped.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { withDeadline } from "./calls/deadline.js";

const COUNTERS = {
  toolshed_http_requests_total: { help: "HTTP requests by method and status", labels: ["method", "status"] },
  toolshed_calls_submitted_total: { help: "Tool calls submitted, by decision", labels: ["behavior"] },
  toolshed_jobs_finished_total: { help: "Jobs finished by a worker, by status", labels: ["status"] },
  toolshed_fast_reads_total: {
    help: "Read-only calls run before they were stored, by outcome (stored, or discarded and run in order)",
    labels: ["outcome"],
  },
  toolshed_sandbox_retries_total: { help: "Jobs retried because the sandbox was unavailable", labels: [] },
  toolshed_jobs_reconciled_total: {
    help: "Jobs queued again because their queue entry was gone",
    labels: [],
  },
  toolshed_rows_pruned_total: {
    help: "Rows deleted by retention once past it, by kind (jobs, sessions, audit, api_keys, …)",
    labels: ["kind"],
  },
  toolshed_prune_failures_total: {
    help: "Retention passes that failed (tried again next interval)",
    labels: [],
  },
} as const;

export type CounterName = keyof typeof COUNTERS;

/** Job counts of one queue by state (BullMQ's names: waiting, active, delayed, prioritized, …). */
export type QueueCounts = () => Promise<Record<string, number>>;

// A scrape must answer even when Redis does not: a queue's depth is then left out.
const QUEUE_COUNT_TIMEOUT_MS = 1000;

export class Metrics {
  readonly registry = new Registry();
  private readonly counters = new Map<CounterName, Counter<string>>();
  private readonly queues = new Map<string, QueueCounts>();
  private liveSandboxCount: () => number = () => 0;
  private defaultsOn = false;

  readonly httpDuration = new Histogram({
    name: "toolshed_http_request_duration_seconds",
    help: "HTTP request latency by method, matched route pattern and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });

  readonly jobDuration = new Histogram({
    name: "toolshed_job_duration_seconds",
    help: "Time from a worker's claim of a job to its final status, by tool and outcome",
    labelNames: ["tool", "outcome"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
    registers: [this.registry],
  });

  readonly executorRoundTrip = new Histogram({
    name: "toolshed_executor_round_trip_seconds",
    help: "One request from the worker to a sandbox's executor and its answer, by operation and outcome",
    labelNames: ["op", "outcome"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
    registers: [this.registry],
  });

  constructor() {
    for (const [name, { help, labels }] of Object.entries(COUNTERS)) {
      const counter = new Counter({ name, help, labelNames: labels, registers: [this.registry] });
      this.counters.set(name as CounterName, counter);
    }
    const queues = this.queues;
    new Gauge({
      name: "toolshed_queue_jobs",
      help: "Jobs in a queue by state, read when scraped",
      labelNames: ["queue", "state"] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        await Promise.all(
          [...queues].map(async ([queue, counts]) => {
            const byState = await withDeadline(
              counts(),
              QUEUE_COUNT_TIMEOUT_MS,
              () => new Error("timed out"),
            ).catch(() => undefined);
            for (const [state, n] of Object.entries(byState ?? {})) this.set({ queue, state }, n);
          }),
        );
      },
    });
    const live = () => this.liveSandboxCount();
    new Gauge({
      name: "toolshed_sandboxes_live",
      help: "Session sandboxes this process holds running",
      registers: [this.registry],
      collect() {
        this.set(live());
      },
    });
    new Gauge({
      name: "toolshed_process_rss_bytes",
      help: "Resident set size",
      registers: [this.registry],
      collect() {
        this.set(process.memoryUsage().rss);
      },
    });
  }

  inc(name: CounterName, labels: Record<string, string> = {}, by = 1): void {
    this.counters.get(name)?.inc(labels, by);
  }

  /** A finished job: counted by status, and timed from `startedAt` (ISO) when it ran. */
  jobFinished(status: string, job?: { tool: string; startedAt: string | null }): void {
    this.inc("toolshed_jobs_finished_total", { status });
    if (!job?.startedAt) return;
    const seconds = (Date.now() - Date.parse(job.startedAt)) / 1000;
    if (Number.isFinite(seconds) && seconds >= 0)
      this.jobDuration.observe({ tool: job.tool, outcome: status }, seconds);
  }

  /** Reports `queue`'s depth by state at each scrape. */
  trackQueue(queue: string, counts: QueueCounts): void {
    this.queues.set(queue, counts);
  }

  trackLiveSandboxes(count: () => number): void {
    this.liveSandboxCount = count;
  }

  /** Adds Node's process metrics (CPU, heap, event-loop lag, …) under `toolshed_`; once per service. */
  withProcessDefaults(): this {
    if (!this.defaultsOn) collectDefaultMetrics({ register: this.registry, prefix: "toolshed_" });
    this.defaultsOn = true;
    return this;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
