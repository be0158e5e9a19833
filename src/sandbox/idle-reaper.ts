/** What the reaper needs to know about a running session. */
export interface IdleCandidate {
  inflight: number;
  lastUsed: number;
}

/** Options of `startIdleReaper`. */
export interface IdleReaperOptions {
  idleStopMs: number;
  sessions: () => Iterable<[string, IdleCandidate]>;
  stop: (sessionId: string) => Promise<void>;
  onError: (sessionId: string, err: unknown) => void;
  now?: () => number;
}

/**
 * Periodically stops sessions that have had no call in flight for `idleStopMs`. One timer for
 * the whole provider, unref'd so it never keeps the process alive. Returns the stop function.
 */
export function startIdleReaper(opts: IdleReaperOptions): () => void {
  const now = opts.now ?? Date.now;
  const every = Math.min(Math.max(Math.floor(opts.idleStopMs / 4), 50), 30_000);
  const timer = setInterval(() => {
    const cutoff = now() - opts.idleStopMs;
    for (const [sessionId, s] of opts.sessions()) {
      if (s.inflight === 0 && s.lastUsed <= cutoff) {
        opts.stop(sessionId).catch((err: unknown) => opts.onError(sessionId, err));
      }
    }
  }, every);
  timer.unref();
  return () => clearInterval(timer);
}
