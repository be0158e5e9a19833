/** In-memory queue and event log for API-shape tests (the unit project needs no Redis). */
import type { JobStatus } from "../../src/contracts/job.js";
import type {
  CancelBus,
  JobEvent,
  JobEvents,
  JobEventType,
  JobNotice,
  JobQueue,
  RateLimiter,
} from "../../src/service/ports.js";

export class MemoryBus implements JobQueue, JobEvents, CancelBus, RateLimiter {
  private readonly hits = new Map<string, number>();
  readonly enqueued: string[] = [];
  readonly cancelled: string[] = [];
  private readonly logs = new Map<string, JobEvent[]>();
  private readonly watchers = new Map<string, Set<() => void>>();
  private readonly tenantWatchers = new Map<string, Set<(n: JobNotice) => void>>();
  private seq = 0;

  async hit(key: string, limit: number, windowS: number): Promise<number | null> {
    const n = (this.hits.get(key) ?? 0) + 1;
    this.hits.set(key, n);
    return n > limit ? windowS : null;
  }
  async enqueue(jobId: string): Promise<void> {
    this.enqueued.push(jobId);
  }
  async promote(): Promise<void> {}
  async discard(): Promise<void> {}
  async requestCancel(jobId: string): Promise<void> {
    this.cancelled.push(jobId);
  }
  async append(jobId: string, ...events: { type: JobEventType; data: unknown }[]): Promise<void> {
    const log = this.logs.get(jobId) ?? [];
    for (const { type, data } of events) log.push({ id: `${++this.seq}-0`, type, data });
    this.logs.set(jobId, log);
    for (const w of this.watchers.get(jobId) ?? []) w();
  }
  async read(jobId: string, afterId?: string): Promise<JobEvent[]> {
    const log = this.logs.get(jobId) ?? [];
    const after = afterId ? Number.parseInt(afterId, 10) : 0;
    return log.filter((e) => Number.parseInt(e.id, 10) > after);
  }
  async watch(jobId: string, onChange: () => void): Promise<() => void> {
    const set = this.watchers.get(jobId) ?? new Set();
    set.add(onChange);
    this.watchers.set(jobId, set);
    return () => set.delete(onChange);
  }
  async publishStatus(
    jobId: string,
    tenantId: string,
    status: JobStatus,
    events: { type: JobEventType; data: unknown }[],
  ): Promise<void> {
    await this.append(jobId, ...events);
    for (const w of this.tenantWatchers.get(tenantId) ?? []) w({ jobId, status });
  }
  async watchTenant(tenantId: string, onNotice: (n: JobNotice) => void): Promise<() => void> {
    const set = this.tenantWatchers.get(tenantId) ?? new Set();
    set.add(onNotice);
    this.tenantWatchers.set(tenantId, set);
    return () => set.delete(onNotice);
  }
}
