/**
 * Per-process, per-database caches of a tenant's configuration that every call reads (settings,
 * tool configuration, MCP servers, the webhook). A writer in this process invalidates its entry
 * when the write has landed, so this process sees its own writes at once; another process (API
 * and workers share the database) sees a change within `CONFIG_TTL_MS`. So only what may be that
 * late elsewhere is read through one: never API keys, a session's host, its rules or mode, the
 * tenant's rules, or the switches that relax its safety (see NOTES-cfg17.md).
 *
 * An entry holds the loading promise: concurrent misses share one read, and a load that started
 * before a write can never be stored after the write's invalidation (the invalidation removes it,
 * and a load started after it reads the write). A failed load is forgotten at once.
 */
import type { Db } from "../db/db.js";

/** How late another process may see a change of a cached value. */
export const CONFIG_TTL_MS = 1000;
/** Entries kept per database (the oldest go first): memory stays bounded whatever the tenant count. */
const MAX_ENTRIES = 10_000;

interface Entry {
  value: Promise<unknown>;
  at: number;
}

export interface TenantReadCache<T> {
  /** The tenant's value from the cache while it is younger than the TTL, else loaded now. */
  get(db: Db, tenantId: string, load: () => Promise<T>): Promise<T>;
  /** Call once a write of the value has landed: the next `get` in this process loads. */
  invalidate(db: Db, tenantId: string): void;
}

export function tenantReadCache<T>(ttlMs = CONFIG_TTL_MS): TenantReadCache<T> {
  const caches = new WeakMap<Db, Map<string, Entry>>();
  const cacheOf = (db: Db) => {
    let c = caches.get(db);
    if (!c) {
      c = new Map();
      caches.set(db, c);
    }
    return c;
  };
  return {
    get(db, tenantId, load) {
      const cache = cacheOf(db);
      const hit = cache.get(tenantId);
      const now = Date.now();
      if (hit && now - hit.at < ttlMs) return hit.value as Promise<T>;
      const entry: Entry = { value: load(), at: now };
      cache.delete(tenantId);
      cache.set(tenantId, entry);
      if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
      entry.value.catch(() => {
        if (cache.get(tenantId) === entry) cache.delete(tenantId);
      });
      return entry.value as Promise<T>;
    },
    invalidate(db, tenantId) {
      caches.get(db)?.delete(tenantId);
    },
  };
}
