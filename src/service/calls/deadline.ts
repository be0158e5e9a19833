/**
 * A timeout that a stalled event loop does not trip. Time is counted in ticks of `tickMs`, and a
 * tick counts at most twice its length: after the loop was blocked (SQLite's busy wait is
 * synchronous), a reply that arrived meanwhile is read before the deadline can pass. A plain
 * timer would fire first and call a healthy Redis unreachable.
 */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => Error,
  tickMs = Math.max(10, Math.min(100, ms / 10)),
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let counted = 0;
    let last = performance.now();
    let timer: NodeJS.Timeout;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const tick = () => {
      const now = performance.now();
      counted += Math.min(now - last, tickMs * 2);
      last = now;
      if (counted >= ms) settle(() => reject(onTimeout()));
      else timer = setTimeout(tick, tickMs);
    };
    timer = setTimeout(tick, tickMs);
    work.then(
      (value) => settle(() => resolve(value)),
      (err: unknown) => settle(() => reject(err)),
    );
  });
}
