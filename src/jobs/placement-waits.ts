/**
 * How long placement work has waited on this host for a host whose Docker engine answers
 * (ENGINE_WAIT_MS), counted on this host's clock from the first time this process saw the entry.
 * The entry's own `timestamp` is the enqueuing host's clock: a host whose engine does not answer,
 * ahead of it by more than the wait, took the work at once and failed it as not run, where a host
 * with an engine could have run it.
 */
export interface PlacementEntry {
  id?: string;
  /** When the entry was added, by the enqueuing host's clock (not used: see above). */
  timestamp: number;
}

/** Entries taken by another host are never `done` here: forgotten this many waits after first sight. */
const FORGET_AFTER_WAITS = 10;

export class PlacementWaits {
  private readonly since = new Map<string, number>();

  constructor(
    private readonly waitMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether `entry` has waited `waitMs` on this host; its first look here starts the wait. */
  over(entry: PlacementEntry): boolean {
    const now = this.now();
    this.forgetOld(now);
    const id = entry.id ?? "";
    const since = this.since.get(id);
    if (since === undefined) this.since.set(id, now);
    return now - (since ?? now) >= this.waitMs;
  }

  /** The entry is taken here (or no longer waits): its wait is over. */
  done(entry: PlacementEntry): void {
    this.since.delete(entry.id ?? "");
  }

  private forgetOld(now: number): void {
    const horizon = FORGET_AFTER_WAITS * Math.max(this.waitMs, 1000);
    for (const [id, since] of this.since) if (now - since > horizon) this.since.delete(id);
  }
}
