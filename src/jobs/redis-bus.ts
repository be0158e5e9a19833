/**
 * Per-job event streams (Redis `XADD`, capped and expiring) plus pub/sub: one channel per job
 * ("this job has new events"), subscribed only by processes with a waiter or SSE reader on that
 * job, so a process never reads every job's notices; "a tenant's job changed status" (the
 * approvals stream), subscribed only while this process has an approvals stream open, for it
 * carries a notice of every call's every status; and one "cancel this job" channel, which every
 * worker reads (cancels are rare, and the worker running the job is not known here).
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { JobStatus } from "../contracts/job.js";
import type {
  CancelBus,
  JobEvent,
  JobEventInput,
  JobEvents,
  JobEventType,
  JobNotice,
} from "../service/ports.js";
import { type ScriptedRedis, scripted } from "./redis-scripts.js";

export interface RedisBusOptions {
  prefix: string;
  maxLen: number;
  ttlS: number;
  /** How long a held publish waits at most (EVENTS_HOLD_MS); HELD_MS when not given. */
  heldMs?: number;
}

type Listener = (jobId: string) => void;

/**
 * The longest a held publish (publishStatus's `held`) waits when nothing sends it sooner; those
 * held meanwhile go together. A watcher in another process sees those events this much later at
 * most (as a run's `running`, run-events.ts); the row is final meanwhile and closes a stream that
 * comes first (follow-job-events.ts). A fast read's events are held so: a client in this thread
 * reads its answer before they are written.
 */
const HELD_MS = 25;

export class RedisBus implements JobEvents, CancelBus {
  private readonly watchers = new Map<string, Set<() => void>>();
  private readonly cancelListeners = new Set<Listener>();
  private readonly missedListeners = new Set<() => void>();
  /** The subscriber dropped: cancels sent until it is back were not heard here. */
  private subscriberLost = false;
  private readonly tenantWatchers = new Map<string, Set<(n: JobNotice) => void>>();
  /** The tenant channel's SUBSCRIBE, while any tenant has a watcher here; undefined otherwise. */
  private tenantSubscription: Promise<unknown> | undefined;
  private readonly tenantChannel: string;
  private readonly cancelChannel: string;
  private readonly scripts: ScriptedRedis;
  /** Tags this process's event notices so that it can skip their pub/sub echo. */
  private readonly origin = randomUUID();
  /** Publishes held back (publishStatus's `held`), in call order; each sends itself. */
  private readonly held: (() => Promise<void>)[] = [];
  private heldTimer: NodeJS.Timeout | undefined;
  /** Settles once Redis answered every held publish sent so far (what `stop` waits for). */
  private heldSent: Promise<unknown> = Promise.resolve();

  /** `sub` becomes a subscriber connection: give it a dedicated client. */
  constructor(
    private readonly redis: Redis,
    private readonly sub: Redis,
    private readonly opts: RedisBusOptions,
  ) {
    this.scripts = scripted(redis);
    this.cancelChannel = `${opts.prefix}:bus:cancel`;
    this.tenantChannel = `${opts.prefix}:bus:tenant-jobs`;
  }

  private readonly onMessage = (channel: string, message: string) => {
    if (channel === this.cancelChannel) {
      for (const l of this.cancelListeners) l(message);
      return;
    }
    if (channel === this.tenantChannel) {
      this.onTenantNotice(message);
      return;
    }
    const [origin, id] = splitNotice(message);
    if (origin !== this.origin && channel === this.channel(id)) this.notify(id);
  };

  private readonly onSubscriberClose = () => {
    this.subscriberLost = true;
  };

  /** Back after a drop: once subscribed again, whoever may have missed a cancel looks at the rows. */
  private readonly onSubscriberReady = () => {
    if (!this.subscriberLost) return;
    this.subscriberLost = false;
    // ioredis resubscribes on its own; this SUBSCRIBE's answer comes after it, so a cancel sent
    // from here on is heard, and one sent before is on its row for the listeners to find.
    this.sub.subscribe(this.cancelChannel).then(
      () => {
        for (const l of this.missedListeners) l();
      },
      () => undefined,
    );
  };

  async start(): Promise<void> {
    this.sub.on("message", this.onMessage);
    this.sub.on("close", this.onSubscriberClose);
    this.sub.on("ready", this.onSubscriberReady);
    await this.sub.subscribe(this.cancelChannel);
  }

  /** Stops listening: nobody is told of events or cancels any more (the connection is its owner's). */
  async stop(): Promise<void> {
    // Sent and answered while the connection is open (its owner closes it after this); not waited
    // for while Redis is away (they fail then, as a publish does).
    this.sendHeld();
    if (this.redis.status === "ready") await this.heldSent;
    this.sub.off("message", this.onMessage);
    this.sub.off("close", this.onSubscriberClose);
    this.sub.off("ready", this.onSubscriberReady);
    this.missedListeners.clear();
    const jobChannels = [...this.watchers.keys()].map((id) => this.channel(id));
    this.watchers.clear();
    this.cancelListeners.clear();
    this.tenantWatchers.clear();
    this.tenantSubscription = undefined;
    // Only while Redis answers: the subscriber queues commands while it is away, and an UNSUBSCRIBE
    // queued then would hold the stop until Redis is back (the connection is cut after this anyway).
    if (this.sub.status !== "ready") return;
    await this.sub.unsubscribe(this.cancelChannel, this.tenantChannel, ...jobChannels).catch(() => undefined);
  }

  private channel(jobId: string): string {
    return `${this.opts.prefix}:bus:job:${jobId}`;
  }

  private key(jobId: string): string {
    return `${this.opts.prefix}:job-events:${jobId}`;
  }

  /** Sent at once on the one command connection, which Redis serves in order: call order holds. */
  async append(jobId: string, ...events: JobEventInput[]): Promise<void> {
    await this.send(jobId, events);
  }

  /** The events and the tenant's notice in one script: one round trip per status change. */
  async publishStatus(
    jobId: string,
    tenantId: string,
    status: JobStatus,
    events: JobEventInput[],
    opts: { held?: boolean } = {},
  ): Promise<void> {
    const tenant = { tenantId, status };
    if (!opts.held) return this.send(jobId, events, tenant);
    return new Promise((resolve, reject) => {
      this.held.push(() => this.send(jobId, events, tenant).then(resolve, (err: unknown) => reject(err)));
      this.heldTimer ??= setTimeout(() => this.sendHeld(), this.opts.heldMs ?? HELD_MS);
    });
  }

  /** Sends the held publishes now, in order. */
  sendHeld(): void {
    clearTimeout(this.heldTimer);
    this.heldTimer = undefined;
    if (this.held.length === 0) return;
    this.heldSent = Promise.allSettled([this.heldSent, ...this.held.splice(0).map((send) => send())]);
  }

  private async send(
    jobId: string,
    events: JobEventInput[],
    tenant?: { tenantId: string; status: JobStatus },
  ): Promise<void> {
    // Whatever was held goes first: this process's writes keep their call order.
    this.sendHeld();
    const args = [
      String(this.opts.maxLen),
      String(this.opts.ttlS),
      this.channel(jobId),
      `${this.origin} ${jobId}`,
      tenant ? this.tenantChannel : "",
      tenant ? JSON.stringify({ origin: this.origin, ...tenant, jobId }) : "",
    ];
    for (const e of events) args.push(e.type, JSON.stringify(e.data));
    const sent = this.scripts.toolshedJobEvents(this.key(jobId), ...args);
    // Waiters in this process (serve mode) are woken now, not one round trip later nor by the
    // pub/sub echo: what they re-read is already stored (the row is written before its events are
    // published), and a stream read they issue goes out on this connection behind the XADD, which
    // Redis serves in order, so it sees these events. The same for the tenant's watchers.
    this.notify(jobId);
    if (tenant) this.notifyTenantWatchers(tenant.tenantId, { jobId, status: tenant.status });
    await sent;
  }

  private notify(jobId: string): void {
    for (const w of this.watchers.get(jobId) ?? []) w();
  }

  async read(jobId: string, afterId?: string, count = 500): Promise<JobEvent[]> {
    // A held publish is sent first, on this connection, which Redis serves in order: the read sees it.
    this.sendHeld();
    const start = afterId ? `(${afterId}` : "-";
    const rows = await this.redis.xrange(this.key(jobId), start, "+", "COUNT", count);
    return rows.map(([id, fields]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
      return { id, type: f.type as JobEventType, data: JSON.parse(f.data ?? "null") };
    });
  }

  async watch(jobId: string, onChange: () => void): Promise<() => void> {
    let set = this.watchers.get(jobId);
    if (!set) {
      set = new Set();
      this.watchers.set(jobId, set);
      // Resolves once subscribed: a notice published after `watch` returns is not missed.
      await this.sub.subscribe(this.channel(jobId));
    }
    set.add(onChange);
    const mine = set;
    return () => {
      mine.delete(onChange);
      if (mine.size === 0 && this.watchers.get(jobId) === mine) {
        this.watchers.delete(jobId);
        this.sub.unsubscribe(this.channel(jobId)).catch(() => undefined);
      }
    };
  }

  /**
   * Resolves once the tenant channel is subscribed: a notice published after `watchTenant` returns
   * is not missed. The first watcher of this process subscribes, the last one to stop unsubscribes
   * (one connection, served in order: a SUBSCRIBE sent after that UNSUBSCRIBE wins). While Redis
   * is away the SUBSCRIBE waits in the subscriber's queue and this does not: the approvals stream
   * opens and its resync covers the gap, as it covered the notices an outage lost before.
   */
  async watchTenant(tenantId: string, onNotice: (n: JobNotice) => void): Promise<() => void> {
    const set = this.tenantWatchers.get(tenantId) ?? new Set();
    this.tenantWatchers.set(tenantId, set);
    set.add(onNotice);
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      set.delete(onNotice);
      if (set.size === 0 && this.tenantWatchers.get(tenantId) === set) this.tenantWatchers.delete(tenantId);
      if (this.tenantWatchers.size > 0 || !this.tenantSubscription) return;
      this.tenantSubscription = undefined;
      this.sub.unsubscribe(this.tenantChannel).catch(() => undefined);
    };
    const subscribed = this.subscribeTenants();
    if (this.sub.status === "ready") {
      try {
        await subscribed;
      } catch (err) {
        stop();
        throw err;
      }
    }
    return stop;
  }

  private subscribeTenants(): Promise<unknown> {
    if (this.tenantSubscription) return this.tenantSubscription;
    const subscribing = this.sub.subscribe(this.tenantChannel);
    this.tenantSubscription = subscribing;
    subscribing.catch(() => {
      if (this.tenantSubscription === subscribing) this.tenantSubscription = undefined;
    });
    return subscribing;
  }

  private onTenantNotice(message: string): void {
    try {
      const m = JSON.parse(message) as { origin?: string; tenantId?: string } & JobNotice;
      if (m.origin !== this.origin && typeof m.tenantId === "string")
        this.notifyTenantWatchers(m.tenantId, { jobId: m.jobId, status: m.status });
    } catch {
      // Not ours (another publisher on the channel): nothing to tell.
    }
  }

  private notifyTenantWatchers(tenantId: string, notice: JobNotice): void {
    for (const w of this.tenantWatchers.get(tenantId) ?? []) w(notice);
  }

  /**
   * This process's own listeners hear it at once, before the message goes out: a run here is
   * aborted before the cancel is answered, so a command that had not started yet never starts
   * (the pub/sub message alone could come after it did). They hear its echo too; aborting twice
   * is harmless, and the wire format stays the bare job id that every version reads.
   */
  async requestCancel(jobId: string): Promise<void> {
    for (const l of this.cancelListeners) l(jobId);
    await this.redis.publish(this.cancelChannel, jobId);
  }

  onCancel(listener: Listener): () => void {
    this.cancelListeners.add(listener);
    return () => this.cancelListeners.delete(listener);
  }

  /**
   * Hears that cancel messages may have been missed: the subscriber dropped (Redis restarted, the
   * connection broke) and is subscribed again. Pub/sub keeps nothing for an absent subscriber, so
   * the listener reads the flags of what it runs (the row is the truth).
   */
  onCancelsMissed(listener: () => void): () => void {
    this.missedListeners.add(listener);
    return () => this.missedListeners.delete(listener);
  }
}

/** `"<origin> <jobId>"` → [origin, jobId]; a bare job id (no origin) comes from elsewhere. */
function splitNotice(message: string): [string, string] {
  const space = message.indexOf(" ");
  return space < 0 ? ["", message] : [message.slice(0, space), message.slice(space + 1)];
}
