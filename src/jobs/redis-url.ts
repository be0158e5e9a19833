/**
 * REDIS_URL → ioredis options. A plain `redis://` / `rediss://` URL is ioredis's own; a Sentinel
 * URL names the sentinels and the master group, and ioredis finds the current master (and follows
 * a fail-over): `redis+sentinel://[:password@]host1:26379,host2:26379/<master>[/<db>]`
 * (`sentinel://` is accepted too). The password is the master's; sentinels are asked without one.
 */
import type { RedisOptions } from "ioredis";

export function redisOptionsFromUrl(url: string): RedisOptions {
  const m = /^(?:redis\+sentinel|sentinel):\/\/(?:([^@/]*)@)?([^/]+)\/([^/]+)(?:\/(\d+))?\/?$/.exec(url);
  if (!m) return redisUrlOptions(url);
  const [, auth, hostList, name, db] = m;
  const sentinels = hostList!.split(",").map((hp) => {
    const at = hp.lastIndexOf(":");
    const host = at > 0 ? hp.slice(0, at) : hp;
    const port = at > 0 ? Number(hp.slice(at + 1)) : 26379;
    if (!host || !Number.isInteger(port) || port <= 0 || port > 65535)
      throw new Error(`REDIS_URL: invalid sentinel address ${JSON.stringify(hp)} (want host:port)`);
    return { host: host.replace(/^\[|\]$/g, ""), port };
  });
  const password = auth
    ? decodeURIComponent(auth.includes(":") ? auth.slice(auth.indexOf(":") + 1) : auth)
    : "";
  return {
    sentinels,
    name: decodeURIComponent(name!),
    ...(password ? { password } : {}),
    ...(db ? { db: Number(db) } : {}),
  };
}

/** ioredis's own parsing of a redis:// URL, as options (so they can be merged with ours). */
function redisUrlOptions(url: string): RedisOptions {
  const u = new URL(url);
  if (u.protocol !== "redis:" && u.protocol !== "rediss:")
    throw new Error(`REDIS_URL: unsupported scheme ${u.protocol} (redis://, rediss:// or redis+sentinel://)`);
  const db = u.pathname.replace(/^\//, "");
  return {
    host: u.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1",
    port: u.port ? Number(u.port) : 6379,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(u.protocol === "rediss:" ? { tls: {} } : {}),
  };
}
