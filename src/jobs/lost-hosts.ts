/** The worker's side of host liveness: its own heartbeat, and the release of lost hosts. */
import { fairPriority } from "../service/calls/fair-priority.js";
import type { ServiceDeps } from "../service/ports.js";
import { pinnedHosts, releaseLostHost } from "../service/sessions/session-hosts.js";
import type { HostRegistry } from "./host-registry.js";
import type { BullJobQueue } from "./queue.js";

/**
 * Keeps this host's liveness key fresh, and hands lost hosts' sessions back to placement (one
 * worker per lost host, by a lock): their queued and running calls are queued again, the next
 * worker re-homes the session (`workspaceLost`), and the take-over check ends what the lost host
 * had started `interrupted` unless it may safely run again.
 */
export function startHeartbeat(
  deps: ServiceDeps,
  hosts: HostRegistry,
  me: string,
  queue: BullJobQueue,
): () => void {
  let busy = false;
  let beatFailedAt = Number.NEGATIVE_INFINITY;
  let relist = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      // Not listed any more: the list may have gone with Redis (restarted empty). Every host a
      // session is pinned to is listed again with a TTL to beat before it counts as lost (its key
      // set as by a beat): one that died meanwhile is still found and released.
      if (await hosts.beat(me)) relist = true;
      if (relist) {
        await hosts.list(await pinnedHosts(deps.db));
        relist = false;
        beatFailedAt = Date.now();
      }
      // This host could not beat a moment ago: Redis was failing (full, frozen, away) for every
      // host, whose keys then lapsed together. Each gets a TTL to beat again before any is lost.
      if (Date.now() - beatFailedAt < hosts.ttlMs) return;
      for (const lost of await hosts.lost()) {
        if (lost === me || !(await hosts.claimSweep(lost, hosts.ttlMs * 3))) continue;
        const jobIds = await releaseLostHost(deps.db, lost);
        for (const id of jobIds) await queue.ensureQueued(id, await fairPriority(deps.db, id), lost);
        await hosts.forget(lost);
        deps.logger.warn(
          { host: lost, requeued: jobIds.length },
          "host lost: its sessions go back to placement",
        );
      }
    } catch (err) {
      beatFailedAt = Date.now();
      deps.logger.warn({ err }, "host heartbeat failed");
    } finally {
      busy = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), Math.max(200, Math.floor(hosts.ttlMs / 3)));
  timer.unref();
  return () => clearInterval(timer);
}
