/** `GET /v1/sessions`: the tenant's sessions, newest first, optionally by status. */
import { eq, type SQL } from "drizzle-orm";
import type { SessionView } from "../../contracts/session.js";
import type { Db } from "../../db/open.js";
import { sessions } from "../../db/schema.js";
import { ValidationError } from "../../errors.js";
import { type Page, type PageQuery, selectPage } from "../page.js";
import type { ToolRegistry } from "../ports.js";
import { listTenant } from "../tenancy/list-scope.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { toSessionView } from "./sessions.js";

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
  return selectPage(deps.db, sessions, where, q, (r) => toSessionView(r, deps.tools));
}
