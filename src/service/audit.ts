/** The tenant's audit trail: decisions and approvals, newest first. */
import { and, desc, eq, gte, type SQL } from "drizzle-orm";
import type { Db } from "../db/open.js";
import { audit } from "../db/schema.js";
import { type Principal, requireRole } from "./principal.js";
import { loadTenant } from "./tenants.js";

export interface AuditQuery {
  sessionId?: string;
  jobId?: string;
  since?: string;
  limit?: number;
}

export function listAudit(deps: { db: Db }, p: Principal, tenantId: string, q: AuditQuery) {
  requireRole(p, ["tenant_admin"]);
  loadTenant(deps, p, tenantId);
  const where: SQL[] = [eq(audit.tenantId, tenantId)];
  if (q.sessionId) where.push(eq(audit.sessionId, q.sessionId));
  if (q.jobId) where.push(eq(audit.jobId, q.jobId));
  if (q.since) where.push(gte(audit.createdAt, q.since));
  const rows = deps.db
    .select()
    .from(audit)
    .where(and(...where))
    .orderBy(desc(audit.createdAt), desc(audit.id))
    .limit(q.limit ?? 100)
    .all();
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    sessionId: r.sessionId,
    jobId: r.jobId,
    actorKeyId: r.actorKeyId,
    data: r.data,
    createdAt: r.createdAt,
  }));
}
