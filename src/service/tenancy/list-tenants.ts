/** `GET /v1/tenants`: every tenant, newest first (platform admin only). */
import type { Db } from "../../db/open.js";
import { tenants } from "../../db/schema.js";
import { type Page, type PageQuery, selectPage } from "../page.js";
import { type Principal, requireRole } from "./principal.js";

export interface TenantListItem {
  id: string;
  name: string;
  createdAt: string;
}

export function listTenants(deps: { db: Db }, p: Principal, q: PageQuery): Page<TenantListItem> {
  requireRole(p, []);
  return selectPage(deps.db, tenants, [], q, (r) => ({ id: r.id, name: r.name, createdAt: r.createdAt }));
}
