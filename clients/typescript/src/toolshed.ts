/**
 * The ergonomic layer: `new Toolshed({ baseUrl, apiKey })`, then `sessions.create()`,
 * `session.tools()`, `session.call(tool, input, { wait })`, `job.stream()`, `job.approve()`.
 * Requests and answers are the generated OpenAPI types (./types.ts).
 */
import { Http, type ToolshedOptions } from "./http.js";
import { Approvals, Jobs } from "./jobs.js";
import { Sessions } from "./sessions.js";
import { Tenants } from "./tenants.js";

export class Toolshed {
  private readonly http: Http;
  readonly tenants: Tenants;
  readonly sessions: Sessions;
  readonly jobs: Jobs;
  readonly approvals: Approvals;

  constructor(opts: ToolshedOptions) {
    this.http = new Http(opts);
    this.tenants = new Tenants(this.http);
    this.jobs = new Jobs(this.http);
    this.sessions = new Sessions(this.http, this.jobs);
    this.approvals = new Approvals(this.http, this.jobs);
  }
}
