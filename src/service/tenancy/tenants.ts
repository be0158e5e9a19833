/** Tenant verbs: create (platform admin only) and lookup. */
import { eq } from "drizzle-orm";
import type { TenantView } from "../../contracts/tenant.js";
import type { Db } from "../../db/open.js";
import { tenants } from "../../db/schema.js";
import { NotFoundError } from "../../errors.js";
import { nowIso } from "../clock.js";
import { newId } from "../ids.js";
import { type Principal, requireRole, requireTenant } from "./principal.js";

export function createTenant(deps: { db: Db }, p: Principal, input: { name: string }): TenantView {
  requireRole(p, []);
  const row = { id: newId("ten"), name: input.name, createdAt: nowIso() };
  deps.db.insert(tenants).values(row).run();
  return { id: row.id, name: row.name };
}

/** The tenant, if the caller may see it; 404 otherwise. */
export function loadTenant(deps: { db: Db }, p: Principal, tenantId: string): TenantView {
  requireTenant(p, tenantId, "tenant", tenantId);
  const row = deps.db.select().from(tenants).where(eq(tenants.id, tenantId)).get();
  if (!row) throw new NotFoundError("tenant", tenantId);
  return { id: row.id, name: row.name };
}
