/** Sessions: a sandbox with its mode and directories; calls, the model's tool list, files. */
import { enc, type Http, queryString, type RetryPolicy, retryPolicyFor } from "./http.js";
import type { Job, Jobs } from "./jobs.js";
import { allPages, type Page } from "./pages.js";
import type {
  CreateSessionInput,
  Decision,
  ImportedWorkspace,
  JobData,
  SessionData,
  SessionFilter,
  SessionTools,
  UpdateSessionInput,
  UploadedFile,
} from "./types.js";

/** Sessions of the key's tenant. */
export class Sessions {
  constructor(
    private readonly http: Http,
    private readonly jobs: Jobs,
  ) {}

  async create(input: CreateSessionInput = {}): Promise<Session> {
    return this.wrap(await this.http.request<SessionData>("POST", "/v1/sessions", input));
  }
  async get(id: string): Promise<Session> {
    return this.wrap(await this.http.request<SessionData>("GET", `/v1/sessions/${enc(id)}`));
  }
  /** Newest first, every page followed as the loop goes (`{ status: "active" }` for the live ones). */
  list(filter: SessionFilter = {}): AsyncGenerator<Session> {
    return allPages(
      (cursor) => this.http.request<Page<SessionData>>("GET", `/v1/sessions${queryString({ ...filter, cursor })}`),
      (data) => this.wrap(data),
    );
  }
  private wrap(data: SessionData): Session {
    return new Session(this.http, this.jobs, data);
  }
}

export interface CallOptions {
  /** Seconds (up to 60) to wait for the result in the same request. */
  wait?: number;
  /**
   * Makes a retried submit return the first job instead of running the call again; with it, the
   * client also retries a submit whose connection failed (without it, it cannot know whether the
   * call was received, and says so).
   */
  idempotencyKey?: string;
}

export class Session {
  /** The session's workspace files (`/workspace`), by path. */
  readonly files: SessionFiles;

  constructor(
    private readonly http: Http,
    private readonly jobs: Jobs,
    /** The session as last read. */
    public data: SessionData,
  ) {
    this.files = new SessionFiles(http, data.id);
  }

  get id(): string {
    return this.data.id;
  }

  /** Submits a tool call; the job is finished when `wait` sufficed, else pending (or held for approval). */
  async call(tool: string, input: Record<string, unknown>, opts: CallOptions = {}): Promise<Job> {
    const query = opts.wait ? `?wait=${opts.wait}` : "";
    const body = { tool, input, ...(opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}) };
    const path = `/v1/sessions/${enc(this.id)}/calls${query}`;
    const retry = retryPolicyFor("submitCall", opts.idempotencyKey !== undefined);
    const { job } = await this.http.request<{ job: JobData }>("POST", path, body, retry);
    return this.jobs.wrap(job);
  }
  /**
   * What the model should see now: the tools (name, description, JSON Schema of the input) of the
   * session's active groups, and the system prompt text of its skills and groups. Ask again after
   * a call that changes them (`reset_tools`, a skill).
   */
  tools(): Promise<SessionTools> {
    return this.http.request("GET", `/v1/sessions/${enc(this.id)}/tools`);
  }
  /** What the policy would decide for this call now; nothing is run or recorded. */
  async decide(tool: string, input: Record<string, unknown>): Promise<Decision> {
    const path = `/v1/sessions/${enc(this.id)}/decisions`;
    const answer = await this.http.request<{ decision: Decision }>(
      "POST",
      path,
      { tool, input },
      retryPolicyFor("decideCall"),
    );
    return answer.decision;
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

/**
 * An upload or import is a job of the session, made when the API receives it: after a failed
 * connection it may exist and run, and a second one would write again after the session's later
 * calls. A pending transfer is a 504 TRANSFER_PENDING naming its job, never sent again either.
 */
const UPLOAD: RetryPolicy = retryPolicyFor("uploadFile");
const IMPORT: RetryPolicy = retryPolicyFor("importWorkspace");

/**
 * Files in the session's workspace, moved as raw bytes. Each is decided as the call it amounts
 * to (a `put` as a Write of the path, a `get` as a Read): anything but allow is a 403.
 */
export class SessionFiles {
  constructor(
    private readonly http: Http,
    private readonly sessionId: string,
  ) {}

  /** Writes the file (its parents made), replacing it. */
  async put(path: string, data: string | Uint8Array): Promise<UploadedFile> {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    const res = await this.http.raw(
      "PUT",
      this.url(path),
      { body: bytes as unknown as RequestInit["body"], headers: { "content-type": "application/octet-stream" } },
      UPLOAD,
    );
    return (await res.json()) as UploadedFile;
  }
  async get(path: string): Promise<Uint8Array> {
    return new Uint8Array(await (await this.http.raw("GET", this.url(path))).arrayBuffer());
  }
  async getText(path: string): Promise<string> {
    return new TextDecoder().decode(await this.get(path));
  }
  /** The whole `/workspace` as an uncompressed tar. */
  async exportTar(): Promise<Uint8Array> {
    const res = await this.http.raw("GET", `/v1/sessions/${enc(this.sessionId)}/workspace.tar`);
    return new Uint8Array(await res.arrayBuffer());
  }
  /** Extracts an uncompressed tar into `/workspace`. */
  async importTar(tar: Uint8Array): Promise<ImportedWorkspace> {
    const res = await this.http.raw(
      "PUT",
      `/v1/sessions/${enc(this.sessionId)}/workspace.tar`,
      { body: tar as unknown as RequestInit["body"], headers: { "content-type": "application/x-tar" } },
      IMPORT,
    );
    return (await res.json()) as ImportedWorkspace;
  }
  private url(path: string): string {
    return `/v1/sessions/${enc(this.sessionId)}/files${queryString({ path })}`;
  }
}
