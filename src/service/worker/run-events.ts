/**
 * A run's events (`running`, its chunks, its end), sent in as few writes as their order allows:
 * each write is a Redis round trip and a script run, and a warm call made three (`running`, one
 * `chunk`, the end) where one carries them all. `running` (with `queued` for a row its insert
 * claimed) waits up to RUNNING_GRACE_MS: a call that ends by then sends everything with its end.
 * Chunks produced in one turn of the event loop go out together. Every event is sent once and in
 * order (each write is issued in call order on the one command connection); a watcher may see
 * `running` up to the grace late, never out of order.
 */
import type { JobRow, JobStatus } from "../../db/rows.js";
import { publishEvents, rowEvents, statusEvent } from "../calls/job-transitions.js";
import type { JobEventInput, ServiceDeps } from "../ports.js";

/**
 * Long enough for a warm command (a Bash `echo` takes ~6 ms on a quiet 2-core machine, 10-15 under
 * load): with 5 ms most warm Bash calls paid a second script call, `running` alone (2.08 script
 * calls per Bash call under load, `bench cost`). A watcher of a longer call sees `running` and its
 * first output at most this late; the row says `running` from the claim on.
 */
const RUNNING_GRACE_MS = 25;

type Deps = Pick<ServiceDeps, "events" | "logger"> & Partial<Pick<ServiceDeps, "db" | "webhooks">>;

export class RunEvents {
  /** Not sent yet, in order. */
  private readonly outbox: JobEventInput[];
  /** The statuses in the outbox, while `running` is unsent (logged when sent). */
  private passed: JobStatus[] | undefined;
  private timer: NodeJS.Timeout | undefined;
  private soon = false;
  private sent: Promise<unknown> = Promise.resolve();

  /** `running`: the claimed row; `earlier`: statuses it went through unpublished (`queued`). */
  constructor(
    private readonly deps: Deps,
    private readonly running: JobRow,
    earlier: readonly JobStatus[],
  ) {
    this.outbox = [...earlier.map(statusEvent), statusEvent(running.status)];
    this.passed = [...earlier];
    this.timer = setTimeout(() => this.flush(), RUNNING_GRACE_MS);
    this.timer.unref();
  }

  /** A chunk of output: sent with the next write, at the latest once this turn ends. */
  chunk(data: unknown): void {
    this.outbox.push({ type: "chunk", data });
    if (this.timer || this.soon) return;
    this.soon = true;
    setImmediate(() => {
      this.soon = false;
      this.flush();
    });
  }

  /** Sends what is pending now (`running` first if it is still held). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.outbox.length === 0) return;
    const events = this.outbox.splice(0);
    const passed = this.passed;
    this.passed = undefined;
    // `running` still held: the running row's publish (its transition logged, the tenant told).
    const send = passed
      ? publishEvents(this.deps, this.running, events, passed)
      : this.deps.events.append(this.running.id, ...events);
    this.track(send);
  }

  /**
   * The run ended: what is pending goes out, with `final`'s events in the same write when this run
   * stored it. Resolves once every write of the run is done (never rejects).
   */
  end(final?: JobRow): Promise<unknown> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!final) {
      this.flush();
      return this.sent;
    }
    const events = [...this.outbox.splice(0), ...rowEvents(final)];
    const passed = this.passed ? [...this.passed, this.running.status] : [];
    this.passed = undefined;
    this.track(publishEvents(this.deps, final, events, passed));
    return this.sent;
  }

  /** The run was superseded (another attempt holds the job): nothing pending is sent. */
  drop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.outbox.splice(0);
  }

  private track(send: Promise<unknown>): void {
    this.sent = Promise.all([this.sent, send.catch(() => undefined)]);
  }
}
