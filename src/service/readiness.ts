/**
 * Whether the service's dependencies answer (Redis, the Docker engine, the database), for
 * `/readyz` and for submit, which refuses with 503 UNAVAILABLE rather than create a job that
 * cannot run. Each probe is bounded by a timeout; submit reuses a result for `cacheMs`, so a
 * busy API pings each dependency at most about once a second.
 */
import { UnavailableError } from "../errors.js";
import { withDeadline } from "./calls/deadline.js";

export type Probe = () => Promise<void> | void;

export interface CheckResult {
  ok: boolean;
  /** A short reason (details only in the logs). */
  error?: string;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

export interface ReadinessOptions {
  timeoutMs: number;
  cacheMs: number;
  /** Told of every failed probe with its error (for the logs). */
  onFailure?: (name: string, err: unknown) => void;
}

const TIMED_OUT = new Error("timed out");

/** Retry-After (seconds) for a submit refused because a dependency is down. */
const RETRY_AFTER_S = 2;

export class Readiness {
  private readonly last = new Map<string, { at: number; result: Promise<CheckResult> }>();

  constructor(
    private readonly probes: Record<string, Probe>,
    private readonly opts: ReadinessOptions,
  ) {}

  /** Every probe now, in parallel. */
  async report(): Promise<ReadinessReport> {
    const names = Object.keys(this.probes);
    const results = await Promise.all(names.map((n) => this.check(n)));
    const checks = Object.fromEntries(names.map((n, i) => [n, results[i]!]));
    return { ready: results.every((r) => r.ok), checks };
  }

  /** Throws 503 UNAVAILABLE naming the first of `names` that does not answer (unknown names pass). */
  async require(names: readonly string[]): Promise<void> {
    const known = names.filter((n) => n in this.probes);
    const results = await Promise.all(known.map((n) => this.check(n, this.opts.cacheMs)));
    const down = known.find((_, i) => !results[i]!.ok);
    if (down)
      throw new UnavailableError(`${LABELS[down] ?? down} is unreachable; retry shortly`, RETRY_AFTER_S);
  }

  /** A result younger than `maxAgeMs` when there is one, else a probe now. */
  private check(name: string, maxAgeMs = 0): Promise<CheckResult> {
    const now = Date.now();
    const cached = this.last.get(name);
    if (cached && now - cached.at < maxAgeMs) return cached.result;
    const result = this.probe(name);
    this.last.set(name, { at: now, result });
    return result;
  }

  /**
   * `work` (which needs dependency `name`), or 503 UNAVAILABLE naming it when it does not settle
   * within the timeout. What it started may still finish later; callers must allow for that.
   */
  bound<T>(name: string, work: Promise<T>): Promise<T> {
    return withDeadline(work, this.opts.timeoutMs, () => unavailable(name));
  }

  private async probe(name: string): Promise<CheckResult> {
    try {
      const work = Promise.resolve().then(this.probes[name]!);
      await withDeadline(work, this.opts.timeoutMs, () => TIMED_OUT);
      return { ok: true };
    } catch (err) {
      this.opts.onFailure?.(name, err);
      return { ok: false, error: err === TIMED_OUT ? "timed out" : "unreachable" };
    }
  }
}

const LABELS: Record<string, string> = {
  redis: "the queue (Redis)",
  docker: "the Docker engine",
  database: "the database",
};

function unavailable(name: string): UnavailableError {
  return new UnavailableError(`${LABELS[name] ?? name} is unreachable; retry shortly`, RETRY_AFTER_S);
}
