/**
 * The tenant's audit trail: decisions, approvals (by a key or by expiry) and external results,
 * newest first. Entries carry a digest of the call's input, never the input itself, so that
 * secrets in commands or file contents do not end up in the log.
 */
import { createHash } from "node:crypto";
import { and, desc, eq, gte, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/open.js";
import { audit, type JobRow } from "../../db/schema.js";
import type { AuditRecord } from "../../db/store.js";
import { nowIso } from "../clock.js";
import { newId } from "../ids.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { loadTenant } from "../tenancy/tenants.js";
import type { Tx } from "./job-transitions.js";

/** `attempt`: a worker took over a job an earlier attempt left unfinished, or ended it interrupted. */
export type AuditKind = "decision" | "approval" | "external_result" | "attempt";

export interface AuditQuery {
  sessionId?: string;
  jobId?: string;
  since?: string;
  limit?: number;
}

export interface AuditEntry {
  tenantId: string;
  sessionId: string;
  jobId: string;
  kind: AuditKind;
  /** The key that acted; null for the service itself (expiry). */
  actorKeyId: string | null;
  data: Record<string, unknown>;
}

/** `sha256:<hex>` of the input as canonical JSON (keys sorted), so equal inputs match. */
export function inputDigest(input: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(input)).digest("hex")}`;
}

/** JSON with object keys sorted, so that equal values serialise alike. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** The tenant, session and job an entry about `job` is filed under. */
export function auditKeys(job: { tenantId: string; sessionId: string; id: string }) {
  return { tenantId: job.tenantId, sessionId: job.sessionId, jobId: job.id };
}

/** The `decision` entry of a new job: tool, input digest (never the input), status and decision. */
export function decisionAudit(
  actorKeyId: string,
  row: Pick<JobRow, "id" | "tenantId" | "sessionId" | "tool" | "input" | "status" | "decision">,
): AuditRecord {
  const data = {
    tool: row.tool,
    inputDigest: inputDigest(row.input),
    status: row.status,
    decision: row.decision,
  };
  return { ...auditKeys(row), kind: "decision", actorKeyId, data };
}

/** Appends one entry (inside the caller's transaction, so it lands with the change it records). */
export function writeAudit(tx: Tx | Db, entry: AuditEntry): void {
  tx.insert(audit)
    .values({ id: newId("aud"), ...entry, createdAt: nowIso() })
    .run();
}

export async function listAudit(deps: { db: Db }, p: Principal, tenantId: string, q: AuditQuery) {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const where: SQL[] = [eq(audit.tenantId, tenantId)];
  if (q.sessionId) where.push(eq(audit.sessionId, q.sessionId));
  if (q.jobId) where.push(eq(audit.jobId, q.jobId));
  if (q.since) where.push(gte(audit.createdAt, q.since));
  const rows = deps.db
    .select()
    .from(audit)
    .where(and(...where))
    // rowid breaks ties within a millisecond in insertion order (ids are random).
    .orderBy(desc(audit.createdAt), desc(sql`rowid`))
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
