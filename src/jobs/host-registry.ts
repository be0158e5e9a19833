/**
 * Worker hosts in Redis: each worker refreshes `<prefix>:host:<id>` (a TTL key) and is listed in
 * `<prefix>:hosts`. A host whose key expired is lost; one surviving worker (a `SET NX` lock per
 * lost host) hands its sessions back to placement (`releaseLostHost`).
 */
import type { Redis } from "ioredis";

export class HostRegistry {
  /** When each host was last seen alive by this process. */
  private readonly aliveAt = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly ttlMs: number,
  ) {}

  private key(hostId: string): string {
    return `${this.prefix}:host:${hostId}`;
  }

  private get setKey(): string {
    return `${this.prefix}:hosts`;
  }

  /**
   * Marks `hostId` alive for another `ttlMs`; true when it was not listed (a first beat, Redis
   * restarted empty, or the host was released as lost meanwhile).
   */
  async beat(hostId: string): Promise<boolean> {
    const res = await this.redis
      .multi()
      .set(this.key(hostId), "1", "PX", this.ttlMs)
      .sadd(this.setKey, hostId)
      .exec();
    return res?.[1]?.[1] === 1;
  }

  /**
   * Lists hosts again (the pinned ones, after the list was lost) and gives each that has no key a
   * TTL as if it had just beaten (`NX`: a real beat is never shortened): alive meanwhile for every
   * process that asks, lost once that lapses without a beat of its own.
   */
  async list(hostIds: readonly string[]): Promise<void> {
    if (hostIds.length === 0) return;
    const tx = this.redis.multi().sadd(this.setKey, ...hostIds);
    for (const id of hostIds) tx.set(this.key(id), "1", "PX", this.ttlMs, "NX");
    await tx.exec();
  }

  /**
   * Every submit asks where its session's host is alive: a yes is kept for a quarter of the TTL
   * (a no never is), saving a Redis round trip per call. A call sent to a host that died within
   * that moment is found by the reconciler once the host's sessions are released, as any lost
   * queue entry is.
   */
  async isAlive(hostId: string): Promise<boolean> {
    const seen = this.aliveAt.get(hostId);
    if (seen !== undefined && Date.now() - seen < this.ttlMs / 4) return true;
    const res = await this.redis.pipeline().exists(this.key(hostId)).sismember(this.setKey, hostId).exec();
    if (res?.[0]?.[1] === 1) {
      this.aliveAt.set(hostId, Date.now());
      return true;
    }
    this.aliveAt.delete(hostId);
    // Only a listed host whose key lapsed is lost (as `lost` says). One not listed is unknown,
    // not dead: Redis restarted empty (every key and the list gone at once) and it has not beaten
    // yet. Taken for dead, its sessions moved to whichever worker pulled their next call, their
    // workspaces left behind; the heartbeat lists every pinned host again (startHeartbeat).
    return res?.[1]?.[1] === 0;
  }

  /** Listed hosts whose liveness key expired. */
  async lost(): Promise<string[]> {
    const ids = await this.redis.smembers(this.setKey);
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.exists(this.key(id));
    const results = (await pipeline.exec()) ?? [];
    return ids.filter((_, i) => results[i]?.[1] === 0);
  }

  /** One retention pass per `holdMs` across the hosts: true for the worker that gets to run it. */
  claimPrune(holdMs: number): Promise<boolean> {
    return this.claimLease("prune-lease", holdMs);
  }

  /** One periodic webhook-delivery reconcile per `holdMs` across the hosts (the pruner's rule). */
  claimDeliveryReconcile(holdMs: number): Promise<boolean> {
    return this.claimLease("webhook-reconcile-lease", holdMs);
  }

  private async claimLease(name: string, holdMs: number): Promise<boolean> {
    return (await this.redis.set(`${this.prefix}:${name}`, "1", "PX", holdMs, "NX")) === "OK";
  }

  /** One sweeper per lost host: true for the worker that gets to release it. */
  async claimSweep(hostId: string, holdMs: number): Promise<boolean> {
    return (await this.redis.set(`${this.prefix}:host-sweep:${hostId}`, "1", "PX", holdMs, "NX")) === "OK";
  }

  /** The lost host's sessions are released: it is no longer listed (it lists itself again if it comes back). */
  async forget(hostId: string): Promise<void> {
    await this.redis.srem(this.setKey, hostId);
  }
}
