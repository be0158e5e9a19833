/** `GET /v1/tenants`: every tenant, newest first (platform admin only). */
import { type Db, tablesOf } from "../../db/db.js";
import { type Page, type PageQuery, selectPage } from "../page.js";
import { type Principal, requireRole } from "./principal.js";

export interface TenantListItem {
  id: string;
  name: string;
  createdAt: string;
}

export async function listTenants(
  deps: { db: Db },
  p: Principal,
  q: PageQuery,
): Promise<Page<TenantListItem>> {
  requireRole(p, []);
  const { tenants } = tablesOf(deps.db);
  return selectPage(deps.db, tenants, [], q, (r) => ({ id: r.id, name: r.name, createdAt: r.createdAt }));
}
