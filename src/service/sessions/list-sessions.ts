/** `GET /v1/sessions`: the tenant's sessions, newest first, optionally by status. */
import { eq, type SQL } from "drizzle-orm";
import type { SessionView } from "../../contracts/session.js";
import { type Db, tablesOf } from "../../db/db.js";
import { ValidationError } from "../../errors.js";
import { type Page, type PageQuery, selectPage } from "../page.js";
import type { ToolRegistry } from "../ports.js";
import { listTenant } from "../tenancy/list-scope.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { sessionView } from "./sessions.js";

const STATUSES = ["active", "deleted"] as const;

export interface SessionListQuery extends PageQuery {
  status?: string;
  tenantId?: string;
}

export async function listSessions(
  deps: { db: Db; tools: ToolRegistry },
  p: Principal,
  q: SessionListQuery,
): Promise<Page<SessionView>> {
  requireRole(p, ["agent", "tenant_admin"]);
  const { sessions } = tablesOf(deps.db);
  const tenantId = await listTenant(deps.db, p, q.tenantId);
  const where: (SQL | undefined)[] = [];
  if (tenantId !== null) where.push(eq(sessions.tenantId, tenantId));
  if (q.status !== undefined) {
    const status = STATUSES.find((s) => s === q.status);
    if (!status) {
      throw new ValidationError("invalid status", [
        { path: "status", message: `one of ${STATUSES.join(", ")} (got ${JSON.stringify(q.status)})` },
      ]);
    }
    where.push(eq(sessions.status, status));
  }
  const rows = await selectPage(deps.db, sessions, where, q, (r) => r);
  // Each tenant's roots come from the settings cache: one read per tenant, not per row.
  const items = await Promise.all(rows.items.map((r) => sessionView(deps.db, r, deps.tools)));
  return { ...rows, items };
}
