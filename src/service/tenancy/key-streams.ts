/**
 * Long-lived streams (SSE, stateful MCP sessions) by the key that opened them, so that revoking
 * a key ends them: at once in the process that revoked it, and within `checkMs` in the others,
 * which re-read the revocations of the keys they serve (one query per pass, only while any
 * stream is open).
 */
import { and, inArray, isNotNull } from "drizzle-orm";
import { type Db, tablesOf } from "../../db/db.js";

export class KeyStreams {
  private readonly open = new Map<string, Set<() => void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly checkMs = 2000,
  ) {}

  /** `onRevoke` runs once if `keyId` is revoked while tracked; call the result when the stream ends. */
  track(keyId: string, onRevoke: () => void): () => void {
    const set = this.open.get(keyId) ?? new Set();
    this.open.set(keyId, set);
    set.add(onRevoke);
    if (!this.timer) {
      this.timer = setInterval(() => void this.check(), this.checkMs);
      this.timer.unref();
    }
    return () => this.untrack(keyId, onRevoke);
  }

  /** Ends every tracked stream of `keyId` (after the key was revoked). */
  revoked(keyId: string): void {
    const set = this.open.get(keyId);
    this.open.delete(keyId);
    for (const onRevoke of set ?? []) onRevoke();
    this.stopIfIdle();
  }

  /** At shutdown: forgets every stream (their owners close them) and stops the re-check. */
  close(): void {
    this.open.clear();
    this.stopIfIdle();
  }

  private untrack(keyId: string, onRevoke: () => void): void {
    const set = this.open.get(keyId);
    set?.delete(onRevoke);
    if (set?.size === 0) this.open.delete(keyId);
    this.stopIfIdle();
  }

  private stopIfIdle(): void {
    if (this.open.size > 0 || !this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async check(): Promise<void> {
    const ids = [...this.open.keys()];
    if (ids.length === 0) return;
    let gone: { id: string }[];
    try {
      const { apiKeys } = tablesOf(this.db);
      gone = await this.db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(inArray(apiKeys.id, ids), isNotNull(apiKeys.revokedAt)));
    } catch {
      return; // busy or closing: the next pass looks again
    }
    for (const { id } of gone) this.revoked(id);
  }
}
