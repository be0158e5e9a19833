/** Tenant verbs: create (platform admin only) and lookup. */
import { eq } from "drizzle-orm";
import type { TenantView } from "../../contracts/tenant.js";
import { type Db, first, tablesOf } from "../../db/db.js";
import { NotFoundError } from "../../errors.js";
import { nowIso } from "../clock.js";
import { newId } from "../ids.js";
import { type Principal, requireRole, requireTenant } from "./principal.js";

export async function createTenant(
  deps: { db: Db },
  p: Principal,
  input: { name: string },
): Promise<TenantView> {
  requireRole(p, []);
  const row = { id: newId("ten"), name: input.name, createdAt: nowIso() };
  const { tenants } = tablesOf(deps.db);
  await deps.db.insert(tenants).values(row);
  return { id: row.id, name: row.name };
}

/** The tenant, if the caller may see it; 404 otherwise. */
export async function loadTenant(deps: { db: Db }, p: Principal, tenantId: string): Promise<TenantView> {
  requireTenant(p, tenantId, "tenant", tenantId);
  const { tenants } = tablesOf(deps.db);
  const row = await first(deps.db.select().from(tenants).where(eq(tenants.id, tenantId)).limit(1));
  if (!row) throw new NotFoundError("tenant", tenantId);
  return { id: row.id, name: row.name };
}
