/** Which tenant a list covers: the caller's own; the platform admin's choice (or every tenant). */
import type { Db } from "../../db/db.js";
import type { Principal } from "./principal.js";
import { loadTenant } from "./tenants.js";

/**
 * The tenant id to filter by, or null for every tenant (the platform admin without `tenantId`).
 * A tenant key naming another tenant gets the 404 of a missing one.
 */
export async function listTenant(db: Db, p: Principal, tenantId: string | undefined): Promise<string | null> {
  if (tenantId !== undefined) return (await loadTenant({ db }, p, tenantId)).id;
  return p.role === "admin" ? null : p.tenantId;
}
