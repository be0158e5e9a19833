/**
 * The approvals inbox (`GET /v1/approvals`): the tenant's jobs waiting for an answer that have
 * not expired, newest first, each with what the approver needs (message, reason, suggestions).
 */
import { eq, gt, isNull, or, type SQL } from "drizzle-orm";
import type { JobView } from "../../contracts/job.js";
import { type Db, tablesOf } from "../../db/db.js";
import { dbNowSql } from "../../db/db-clock.js";
import { pendingApproval } from "../../db/job-predicates.js";
import type { JobRow } from "../../db/rows.js";
import { type Page, type PageQuery, selectPage } from "../page.js";
import { listTenant } from "../tenancy/list-scope.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { toJobView } from "./job-view.js";

export interface ApprovalItem {
  job: JobView;
  decision: { message: string; reason: string | null; suggestions: string[] };
  /** When the approval is denied unanswered; null when it never expires. */
  expiresAt: string | null;
}

export interface ApprovalListQuery extends PageQuery {
  sessionId?: string;
  tenantId?: string;
}

export function toApprovalItem(row: JobRow): ApprovalItem {
  const { message, reason, suggestions } = row.decision;
  return {
    job: toJobView(row),
    decision: { message, reason, suggestions },
    expiresAt: row.approvalExpiresAt,
  };
}

export async function listApprovals(
  deps: { db: Db },
  p: Principal,
  q: ApprovalListQuery,
): Promise<Page<ApprovalItem>> {
  requireRole(p, ["tenant_admin"]);
  const tenantId = await listTenant(deps.db, p, q.tenantId);
  const { jobs } = tablesOf(deps.db);
  const where: (SQL | undefined)[] = [
    // Inlined: across tenants (a platform admin's inbox) it walks the pending approvals' own index.
    pendingApproval(jobs.status),
    // Past its expiry it is about to be denied by the sweep: not something to answer any more.
    or(isNull(jobs.approvalExpiresAt), gt(jobs.approvalExpiresAt, dbNowSql(deps.db))),
  ];
  if (tenantId !== null) where.push(eq(jobs.tenantId, tenantId));
  if (q.sessionId !== undefined) where.push(eq(jobs.sessionId, q.sessionId));
  return await selectPage(deps.db, jobs, where, q, toApprovalItem);
}
