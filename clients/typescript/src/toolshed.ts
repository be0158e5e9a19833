/**
 * The ergonomic layer: `new Toolshed({ baseUrl, apiKey })`, then `sessions.create()`,
 * `session.call(tool, input, { wait })`, `job.stream()`, `job.approve()` / `job.deny()`.
 * Requests and answers are the generated OpenAPI types (./types.ts).
 */
import { ToolshedError } from "./errors.js";
import { enc, Http, type ToolshedOptions } from "./http.js";
import { readSse } from "./sse.js";
import type {
  ApprovalInput,
  CreatedKey,
  CreateKeyInput,
  CreateSessionInput,
  JobData,
  JobEvent,
  RuleSet,
  SessionData,
  Tenant,
  TenantSettings,
  UpdateSessionInput,
  UpdateTenantSettingsInput,
} from "./types.js";

const PENDING = new Set(["queued", "running"]);

export class Toolshed {
  private readonly http: Http;
  readonly tenants: Tenants;
  readonly sessions: Sessions;
  readonly jobs: Jobs;

  constructor(opts: ToolshedOptions) {
    this.http = new Http(opts);
    this.tenants = new Tenants(this.http);
    this.jobs = new Jobs(this.http);
    this.sessions = new Sessions(this.http, this.jobs);
  }
}

/** Tenants, their keys, rules and settings (platform admin / tenant admin). */
export class Tenants {
  constructor(private readonly http: Http) {}

  create(input: { name: string }): Promise<Tenant> {
    return this.http.request("POST", "/v1/tenants", input);
  }
  /** A new key; its secret (`key`) is shown only in this answer. */
  createKey(tenantId: string, input: CreateKeyInput): Promise<CreatedKey> {
    return this.http.request("POST", `/v1/tenants/${enc(tenantId)}/keys`, input);
  }
  revokeKey(keyId: string): Promise<void> {
    return this.http.request("DELETE", `/v1/keys/${enc(keyId)}`);
  }
  setRules(tenantId: string, rules: RuleSet): Promise<RuleSet> {
    return this.http.request("PUT", `/v1/tenants/${enc(tenantId)}/rules`, rules);
  }
  getRules(tenantId: string): Promise<RuleSet> {
    return this.http.request("GET", `/v1/tenants/${enc(tenantId)}/rules`);
  }
  getSettings(tenantId: string): Promise<TenantSettings> {
    return this.http.request("GET", `/v1/tenants/${enc(tenantId)}/settings`);
  }
  updateSettings(tenantId: string, input: UpdateTenantSettingsInput): Promise<TenantSettings> {
    return this.http.request("PUT", `/v1/tenants/${enc(tenantId)}/settings`, input);
  }
}

/** Sessions of the agent key's tenant. */
export class Sessions {
  constructor(
    private readonly http: Http,
    private readonly jobs: Jobs,
  ) {}

  async create(input: CreateSessionInput = {}): Promise<Session> {
    return new Session(this.http, this.jobs, await this.http.request<SessionData>("POST", "/v1/sessions", input));
  }
  async get(id: string): Promise<Session> {
    return new Session(this.http, this.jobs, await this.http.request<SessionData>("GET", `/v1/sessions/${enc(id)}`));
  }
}

export interface CallOptions {
  /** Seconds (up to 60) to wait for the result in the same request. */
  wait?: number;
  /** Makes a retried submit return the first job instead of running the call again. */
  idempotencyKey?: string;
}

export class Session {
  constructor(
    private readonly http: Http,
    private readonly jobs: Jobs,
    /** The session as last read. */
    public data: SessionData,
  ) {}

  get id(): string {
    return this.data.id;
  }

  /** Submits a tool call; the job is finished when `wait` sufficed, else pending (or held for approval). */
  async call(tool: string, input: Record<string, unknown>, opts: CallOptions = {}): Promise<Job> {
    const query = opts.wait ? `?wait=${opts.wait}` : "";
    const body = { tool, input, ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}) };
    const { job } = await this.http.request<{ job: JobData }>("POST", `/v1/sessions/${enc(this.id)}/calls${query}`, body);
    return this.jobs.wrap(job);
  }
  async update(input: UpdateSessionInput): Promise<Session> {
    this.data = await this.http.request("PATCH", `/v1/sessions/${enc(this.id)}`, input);
    return this;
  }
  async refresh(): Promise<Session> {
    this.data = await this.http.request("GET", `/v1/sessions/${enc(this.id)}`);
    return this;
  }
  /** Deletes the session with its container and workspace. */
  delete(): Promise<void> {
    return this.http.request("DELETE", `/v1/sessions/${enc(this.id)}`);
  }
}

export class Jobs {
  constructor(private readonly http: Http) {}

  async get(id: string): Promise<Job> {
    const { job } = await this.http.request<{ job: JobData }>("GET", `/v1/jobs/${enc(id)}`);
    return this.wrap(job);
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
