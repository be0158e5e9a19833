import { randomInt } from "node:crypto";
import type Dockerode from "dockerode";
import { identitiesFrom, type SandboxIdentities } from "./sandbox.js";

/**
 * A host uid range per sandbox (SANDBOX_UID_SLOTS). Without user namespaces a container's uid is
 * the host's, and the kernel counts some things per uid host-wide (SHM_LOCK against
 * RLIMIT_MEMLOCK, RLIMIT_NPROC, epoll watches, inotify instances, pipe pages, POSIX queues): with
 * one range for all sandboxes, one tenant fills what another's calls need. With a slot each, no
 * two sandboxes of a host share a uid. docs/sandbox.md ("A uid range per sandbox") says why so.
 */

/** The container's slot; a re-created container (hardening label change) keeps it. */
export const LABEL_UID_SLOT = "toolshed.uid-slot";
/** uids per slot: the identities use base .. base + 95 (sandbox.ts identitiesFrom); room to grow. */
export const UID_SLOT_WIDTH = 128;
/**
 * The first slot's base: far above the host's users and the usual subordinate uid ranges
 * (/etc/subuid starts at 100000, 65536 per user), below 2^31 (software that reads a uid as a
 * signed 32-bit number), and round, so that `ls -ln` shows a slot at a glance.
 */
export const DEFAULT_SLOT_BASE = 1_000_000_000;

/** Whose uids a container runs under: a slot's (with its account files) or the shared range. */
export interface Placement {
  identities: SandboxIdentities;
  uidSlot?: number;
  accountFiles?: { hostPath: string; containerPath: string }[];
  /** Frees the slot's reservation once the container (labelled with it) exists or failed. */
  release?: () => void;
}

export interface UidSlots {
  /** Base of slot 0. */
  base: number;
  /** Slots on one host (the highest base + UID_SLOT_WIDTH stays below 2^31). */
  count: number;
}

export function slotIdentities(slots: UidSlots, slot: number): SandboxIdentities {
  return identitiesFrom(slots.base + UID_SLOT_WIDTH * slot);
}

/** The slot a uid belongs to, or undefined when it is none's. */
export function slotOfUid(slots: UidSlots, uid: number): number | undefined {
  const off = uid - slots.base;
  if (off < 0) return undefined;
  const slot = Math.floor(off / UID_SLOT_WIDTH);
  return slot < slots.count ? slot : undefined;
}

/** Whether the layout fits: every slot's uids below 2^31. */
export function uidSlotsProblem(slots: UidSlots): string | undefined {
  const top = slots.base + UID_SLOT_WIDTH * slots.count;
  return top > 2 ** 31 ? `uid slots end at ${top}, past 2^31 (fewer slots or a lower base)` : undefined;
}

/** The slot label as a number, or undefined (no label, or not a slot of this layout). */
export function labelledSlot(
  slots: UidSlots,
  labels: Record<string, string> | undefined,
): number | undefined {
  const text = labels?.[LABEL_UID_SLOT];
  if (text === undefined || !/^\d{1,9}$/.test(text)) return undefined;
  const slot = Number(text);
  return slot < slots.count ? slot : undefined;
}

/**
 * Hands out slots unique among the engine's containers (any service's, running or stopped: a
 * stopped container keeps its slot for its restart). One worker drives one engine; within the
 * process, a slot handed out is reserved until its container exists (then its label holds it).
 * Across processes nothing is locked: two that pick at once may pick one slot (two sandboxes
 * then share a range, as all did before); the pick is random so that this stays rare, and the
 * later restart of either finds its slot held and moves (its workspace re-owned).
 */
export class UidSlotAllocator {
  private readonly reserved = new Set<number>();
  private lock: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly docker: Dockerode,
    readonly slots: UidSlots,
  ) {}

  /**
   * A slot for the container `name`: `preferred` when no other container holds it, else a free
   * one. `release` once the container is created (or its start failed).
   */
  async hold(name: string, preferred?: number): Promise<{ slot: number; release: () => void }> {
    // Listing and picking one at a time, so two starts in this process never pick the same slot.
    const pick = this.lock.then(async () => {
      const taken = await this.taken(name);
      let slot = preferred !== undefined && !taken.has(preferred) ? preferred : undefined;
      // A random free slot, not the lowest: two processes driving one engine (test runs, or two
      // workers on one host) that pick at the same moment then seldom pick the same.
      for (let i = 0; slot === undefined && i < 32; i++) {
        const s = randomInt(this.slots.count);
        if (!taken.has(s)) slot = s;
      }
      for (let s = 0; slot === undefined && s < this.slots.count; s++) if (!taken.has(s)) slot = s;
      if (slot === undefined) throw new Error(`all ${this.slots.count} uid slots of this host are taken`);
      this.reserved.add(slot);
      return slot;
    });
    this.lock = pick.catch(() => undefined);
    const slot = await pick;
    let released = false;
    return {
      slot,
      release: () => {
        if (!released) this.reserved.delete(slot);
        released = true;
      },
    };
  }

  /** Slots held by containers other than `name`, and reserved here. */
  private async taken(name: string): Promise<Set<number>> {
    const taken = new Set(this.reserved);
    const containers = await this.docker.listContainers({ all: true, filters: { label: [LABEL_UID_SLOT] } });
    for (const c of containers) {
      if (c.Names?.some((n) => n.replace(/^\//, "") === name)) continue;
      const slot = labelledSlot(this.slots, c.Labels);
      if (slot !== undefined) taken.add(slot);
    }
    return taken;
  }
}
