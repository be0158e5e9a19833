/** Jobs: one call's state, its live events, and the answers a held call waits for. */
import { ToolshedError } from "./errors.js";
import { enc, type Http, queryString } from "./http.js";
import { allPages, type Page } from "./pages.js";
import { readSse } from "./sse.js";
import type {
  ApprovalFilter,
  ApprovalInput,
  ApprovalItem,
  ExternalResultInput,
  JobData,
  JobEvent,
  JobFilter,
} from "./types.js";

const PENDING = new Set(["queued", "running"]);

export class Jobs {
  constructor(private readonly http: Http) {}

  async get(id: string): Promise<Job> {
    const { job } = await this.http.request<{ job: JobData }>("GET", `/v1/jobs/${enc(id)}`);
    return this.wrap(job);
  }
  /**
   * The jobs the key may see, newest first, every page followed as the loop goes:
   * `for await (const job of client.jobs.list({ sessionId, status: ["failed"] }))`.
   */
  list(filter: JobFilter = {}): AsyncGenerator<Job> {
    return allPages(
      (cursor) => this.http.request<Page<JobData>>("GET", `/v1/jobs${queryString({ ...filter, cursor })}`),
      (data) => this.wrap(data),
    );
  }
  /** @internal */
  wrap(data: JobData): Job {
    return new Job(this.http, data);
  }
}

export class Job {
  constructor(
    private readonly http: Http,
    /** The job as last read. */
    public data: JobData,
  ) {}

  get id(): string {
    return this.data.id;
  }
  get status(): JobData["status"] {
    return this.data.status;
  }
  get result(): JobData["result"] {
    return this.data.result;
  }
  /** The result's text blocks joined: a command's output, a file's numbered lines, an error text. */
  get text(): string {
    return (this.data.result?.content ?? []).map((b) => (typeof b.text === "string" ? b.text : "")).join("");
  }
  /** Not finished yet: queued or running (held calls are `awaiting_approval` / `awaiting_external`). */
  get pending(): boolean {
    return PENDING.has(this.data.status);
  }

  async refresh(): Promise<Job> {
    this.data = (await this.http.request<{ job: JobData }>("GET", `/v1/jobs/${enc(this.id)}`)).job;
    return this;
  }

  /** Approves a held call (tenant admin; agents where the tenant allows). `remember` adds allow rules to the session. */
  approve(opts: { remember?: string[] } = {}): Promise<Job> {
    return this.answer({ approve: true, ...opts });
  }
  deny(): Promise<Job> {
    return this.answer({ approve: false });
  }
  /**
   * The result of a call to one of the tenant's external tools (the job is `awaiting_external`):
   * your code ran it, and the job ends with this content (`isError`: it ends `failed`).
   */
  async submitResult(result: ExternalResultInput): Promise<Job> {
    const path = `/v1/jobs/${enc(this.id)}/external-result`;
    this.data = (await this.http.request<{ job: JobData }>("POST", path, result)).job;
    return this;
  }
  async cancel(): Promise<Job> {
    this.data = (await this.http.request<{ job: JobData }>("POST", `/v1/jobs/${enc(this.id)}/cancel`)).job;
    return this;
  }

  /**
   * The job's events as they happen: `status`, `chunk` (deltas of live output: append them) and
   * `result`, always last, after which the iteration ends. Resumes after `lastEventId` if given;
   * a connection lost before the `result` is resumed after the last event received (up to
   * `reconnects` times, default 5).
   */
  async *stream(
    opts: { lastEventId?: string; signal?: AbortSignal; reconnects?: number } = {},
  ): AsyncGenerator<JobEvent> {
    let last = opts.lastEventId;
    for (let attempt = 0; attempt <= (opts.reconnects ?? 5); attempt++) {
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (last) headers["last-event-id"] = last;
      let body: ReadableStream<Uint8Array> | null;
      try {
        const res = await this.http.raw("GET", `/v1/jobs/${enc(this.id)}/events`, {
          headers,
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
        body = res.body;
      } catch (err) {
        if (err instanceof ToolshedError || opts.signal?.aborted) throw err;
        continue;
      }
      if (!body) continue;
      try {
        for await (const m of readSse(body)) {
          if (m.event !== "status" && m.event !== "chunk" && m.event !== "result") continue;
          const event = { event: m.event, id: m.id ?? "", data: JSON.parse(m.data) } as JobEvent;
          if (m.id) last = m.id;
          this.apply(event);
          yield event;
          if (event.event === "result") return;
        }
      } catch (err) {
        if (opts.signal?.aborted) throw err;
      }
    }
    throw new ToolshedError(0, {
      error: { code: "STREAM_ENDED", message: `the event stream of ${this.id} ended without a result` },
    });
  }

  /** Follows the stream to the `result` and returns the finished job. */
  async wait(opts: { signal?: AbortSignal } = {}): Promise<Job> {
    for await (const _ of this.stream(opts)) {
      // The stream updates `data` as it goes.
    }
    return this.refresh();
  }

  private apply(event: JobEvent): void {
    if (event.event === "status") this.data = { ...this.data, status: event.data.status };
    if (event.event === "result") {
      const { status, result } = event.data;
      this.data = { ...this.data, status, ...(result ? { result } : {}) };
    }
  }

  private async answer(body: ApprovalInput): Promise<Job> {
    this.data = (await this.http.request<{ job: JobData }>("POST", `/v1/jobs/${enc(this.id)}/approval`, body)).job;
    return this;
  }
}

/** An approval waiting for an answer: the held job, why it asks, and when it expires. */
export type Approval = Omit<ApprovalItem, "job"> & { job: Job };

/** The calls of the key's tenant that wait for an approval (tenant admins). */
export class Approvals {
  constructor(
    private readonly http: Http,
    private readonly jobs: Jobs,
  ) {}

  /** Newest first, every page followed; answer each with `approval.job.approve()` or `.deny()`. */
  list(filter: ApprovalFilter = {}): AsyncGenerator<Approval> {
    return allPages(
      (cursor) => this.http.request<Page<ApprovalItem>>("GET", `/v1/approvals${queryString({ ...filter, cursor })}`),
      (item) => ({ ...item, job: this.jobs.wrap(item.job) }),
    );
  }
}
