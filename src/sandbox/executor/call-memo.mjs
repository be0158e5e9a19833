// What makes a tool call run once. Every request that carries a key (`<jobId>:<n>`) is remembered
// here until the host acknowledges the job (it stored the result) or the entry ages out. A worker
// that takes a job over sends the same keys again: a running command is re-attached, a finished
// one or a file operation answers what it answered the first time, and nothing runs twice.

const MAX_ENTRIES = 2048;
const MAX_BYTES = 96 * 1024 * 1024;
// A reply larger than this is not kept: the operation is a read, and reads may run again.
const MAX_KEPT_REPLY = 8 * 1024 * 1024;
const DONE_TTL_MS = 30 * 60_000;
// Aged entries are looked for at most this often (bounds are checked on every change).
const SWEEP_EVERY_MS = 60_000;

export class CallMemo {
  constructor() {
    /** key → { job, done, bytes, doneAt, reply?, exec? } (Map order is insertion order). */
    this.entries = new Map();
    this.bytes = 0;
    this.sweptAt = Date.now();
  }

  get(key) {
    return typeof key === "string" ? this.entries.get(key) : undefined;
  }

  /** Starts remembering `key` (a running exec, or a file op about to run). */
  begin(key, fields = {}) {
    const entry = { job: jobOf(key), done: false, bytes: 0, doneAt: 0, ...fields };
    this.entries.set(key, entry);
    this.prune();
    return entry;
  }

  /** Accounts `bytes` more kept for `entry` (exec output). */
  grow(entry, bytes) {
    entry.bytes += bytes;
    this.bytes += bytes;
  }

  /** The operation ended; a file op's reply line is kept when small enough. */
  finish(key, entry, reply) {
    entry.done = true;
    entry.doneAt = Date.now();
    if (typeof reply === "string") {
      if (reply.length > MAX_KEPT_REPLY) {
        this.drop(key);
        return;
      }
      entry.reply = reply;
      this.grow(entry, reply.length);
    }
    this.prune();
  }

  /** The host stored these jobs' results: their entries can go. */
  ack(jobIds) {
    if (!Array.isArray(jobIds) || jobIds.length === 0 || this.entries.size === 0) return;
    // Mostly one id (the job finished since the host's last request): no set for a few.
    const few = jobIds.length <= 8;
    const done = few ? null : new Set(jobIds);
    this.entries.forEach((entry, key) => {
      if (entry.done && (few ? jobIds.includes(entry.job) : done.has(entry.job))) this.drop(key);
    });
  }

  drop(key) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.bytes;
    this.entries.delete(key);
  }

  /**
   * Oldest finished entries go first while over a bound (Map order is insertion order, so the
   * walk stops as soon as it is under); running ones are never dropped. Aged ones go once a minute.
   */
  prune() {
    const now = Date.now();
    const sweep = now - this.sweptAt >= SWEEP_EVERY_MS;
    if (!sweep && this.entries.size <= MAX_ENTRIES && this.bytes <= MAX_BYTES) return;
    if (sweep) this.sweptAt = now;
    for (const [key, entry] of this.entries) {
      const over = this.entries.size > MAX_ENTRIES || this.bytes > MAX_BYTES;
      if (!over && !sweep) return;
      if (entry.done && (over || now - entry.doneAt >= DONE_TTL_MS)) this.drop(key);
    }
  }
}

function jobOf(key) {
  const i = key.lastIndexOf(":");
  return i === -1 ? key : key.slice(0, i);
}

/** A key as the host sends it: a short printable string, or nothing. */
export function validKey(key) {
  return typeof key === "string" && key.length > 0 && key.length <= 200 && /^[\x21-\x7e]+$/.test(key);
}
