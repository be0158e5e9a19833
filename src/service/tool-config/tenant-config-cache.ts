/**
 * A short-lived, per-database cache of each tenant's tool configuration (groups, skills,
 * external tools, MCP server names): every call reads it twice (submit and run), six queries each.
 * Writers in this process invalidate it at once; another process sees a change within TTL_MS.
 */
import type { Db } from "../../db/db.js";

const TTL_MS = 1000;

interface Entry<T> {
  value: T;
  at: number;
}

const caches = new WeakMap<Db, Map<string, Entry<unknown>>>();

function cacheOf(db: Db): Map<string, Entry<unknown>> {
  let c = caches.get(db);
  if (!c) {
    c = new Map();
    caches.set(db, c);
  }
  return c;
}

/** The tenant's configuration from the cache, or loaded now. */
export function cachedTenantConfig<T>(db: Db, tenantId: string, load: () => T): T {
  const cache = cacheOf(db);
  const hit = cache.get(tenantId);
  const now = Date.now();
  if (hit && now - hit.at < TTL_MS) return hit.value as T;
  const value = load();
  cache.set(tenantId, { value, at: now });
  return value;
}

/** Call after writing any of the tenant's tool configuration. */
export function invalidateTenantConfig(db: Db, tenantId: string): void {
  caches.get(db)?.delete(tenantId);
}
