/**
 * A short-lived, per-database cache of each tenant's tool configuration (groups, skills,
 * external tools, MCP server names): every call reads it twice (submit and run), six queries each.
 * Writers in this process invalidate it at once; another process sees a change within the TTL
 * (src/service/tenant-read-cache.ts).
 */
import type { Db } from "../../db/db.js";
import { tenantReadCache } from "../tenant-read-cache.js";

const cache = tenantReadCache<unknown>();

/** The tenant's configuration from the cache, or loaded now. */
export function cachedTenantConfig<T>(db: Db, tenantId: string, load: () => Promise<T>): Promise<T> {
  return cache.get(db, tenantId, load) as Promise<T>;
}

/** Call after writing any of the tenant's tool configuration. */
export function invalidateTenantConfig(db: Db, tenantId: string): void {
  cache.invalidate(db, tenantId);
}
