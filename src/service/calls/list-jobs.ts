/** `GET /v1/jobs`: the tenant's jobs, newest first, by session, status, tool and creation time. */
import { eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import { JobStatus as JobStatusSchema, type JobView } from "../../contracts/job.js";
import type { Db } from "../../db/open.js";
import { type JobStatus, jobs } from "../../db/schema.js";
import { ValidationError } from "../../errors.js";
import { type Page, type PageQuery, selectPage } from "../page.js";
import { listTenant } from "../tenancy/list-scope.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { toJobView } from "./job-view.js";

export interface JobListQuery extends PageQuery {
  sessionId?: string;
  /** Repeated (`status=a&status=b`) or comma-separated (`status=a,b`): any of them. */
  status?: string | string[];
  tool?: string;
  /** Created at or after (ISO-8601). */
  since?: string;
  /** Created before (ISO-8601). */
  until?: string;
  tenantId?: string;
}

export async function listJobs(deps: { db: Db }, p: Principal, q: JobListQuery): Promise<Page<JobView>> {
  requireRole(p, ["agent", "tenant_admin"]);
  const tenantId = await listTenant(deps.db, p, q.tenantId);
  const where: (SQL | undefined)[] = [];
  if (tenantId !== null) where.push(eq(jobs.tenantId, tenantId));
  if (q.sessionId !== undefined) where.push(eq(jobs.sessionId, q.sessionId));
  const statuses = parseStatuses(q.status);
  if (statuses) where.push(inArray(jobs.status, statuses));
  if (q.tool !== undefined) where.push(eq(jobs.tool, q.tool));
  if (q.since !== undefined) where.push(gte(jobs.createdAt, isoTime("since", q.since)));
  if (q.until !== undefined) where.push(lt(jobs.createdAt, isoTime("until", q.until)));
  return selectPage(deps.db, jobs, where, q, toJobView);
}

function parseStatuses(raw: string | string[] | undefined): JobStatus[] | undefined {
  if (raw === undefined) return undefined;
  const names = (Array.isArray(raw) ? raw : [raw]).flatMap((s) => s.split(",")).map((s) => s.trim());
  const JOB_STATUSES: readonly JobStatus[] = JobStatusSchema.options;
  const unknown = names.filter((n) => !JOB_STATUSES.includes(n as JobStatus));
  if (unknown.length > 0) {
    throw new ValidationError("invalid status", [
      {
        path: "status",
        message: `unknown status ${JSON.stringify(unknown[0])}: use any of ${JOB_STATUSES.join(", ")}`,
      },
    ]);
  }
  return names as JobStatus[];
}

/** Stored times are `toISOString()` strings: a filter time is brought to the same form. */
function isoTime(field: string, value: string): string {
  const t = Date.parse(value);
  if (Number.isNaN(t) || !/^\d{4}-\d\d-\d\dT/.test(value)) {
    throw new ValidationError(`invalid ${field}`, [
      { path: field, message: "an ISO-8601 date-time, e.g. 2026-01-31T12:00:00Z" },
    ]);
  }
  return new Date(t).toISOString();
}
