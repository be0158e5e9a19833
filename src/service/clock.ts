/** The service's one clock: ISO-8601 UTC timestamps as stored in every row. */
export function nowIso(): string {
  return new Date().toISOString();
}

/**
 * This host's wall clock, injectable (`ServiceDeps.hostClock`) so that a test can run one
 * composition with a skewed clock beside another on one database. A host's clock only stamps what
 * that host did (createdAt, …); a decision that ends or deletes other hosts' rows takes the
 * database's clock instead (db/db-clock.ts), so a host N minutes ahead decides nothing early.
 */
export type HostClock = () => Date;

/** The machine's clock: the default where a composition gives none. */
export const systemClock: HostClock = () => new Date();
