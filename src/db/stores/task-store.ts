/**
 * The durable TaskStore behind TaskCreate/Get/List/Update: one `session_tasks` row per session
 * holding `{tasks, lastId}`. Every update reads, changes and writes the board in one transaction
 * that holds the session's row for its whole length, so concurrent task calls of a session (from
 * any process) serialize and a throwing change saves nothing. Holding the row is said per
 * dialect (the one place here that needs it): SQLite takes the write lock up front (IMMEDIATE);
 * Postgres makes sure the row exists, then locks it (`SELECT … FOR UPDATE`).
 *
 * A job's store (`DbTaskStore(db, run)`) writes exactly once per job, whatever its worker does:
 *  - fenced: the same transaction checks that the job is still `running` the attempt the run
 *    claimed (Postgres holds the job's row `FOR SHARE`, so a take-over's claim waits for the
 *    write or the write sees the claim), else it saves nothing and throws AttemptSupersededError;
 *  - keyed: each update of a job is `<jobId>:<n>`, and the board keeps the result of the last
 *    APPLIED_KEPT keyed updates. A take-over runs a task call again (task tools are
 *    concurrency-safe, takeover.ts); an update its earlier attempt saved answers what it answered
 *    then instead of creating the task a second time.
 */
import { eq } from "drizzle-orm";
import { AttemptSupersededError } from "../../errors.js";
import { nowIso } from "../../service/clock.js";
import { heldBy } from "../../service/worker/attempt-fence.js";
import type { Task, TaskBoard, TaskStore } from "../../toolkit/tasks/task.js";
import { type Db, dialectOf, first, tablesOf } from "../db.js";
import type { PgDb } from "../pg/open-pg.js";
import * as pgSchema from "../pg/schema.js";

type Applied = { key: string; result: unknown };
type BoardData = { tasks: unknown[]; lastId: number; applied?: Applied[] };

/**
 * Keyed results a board keeps: a take-over finds its job's among them unless this many task
 * updates of the session were saved since (its calls are serialized behind it: far fewer).
 */
export const APPLIED_KEPT = 64;

/** The attempt a job's writes belong to (attempt-fence.ts#RunAttempt). */
export interface TaskRun {
  jobId: string;
  run: number;
  /** Hears the refusal even when the tool turns it into an error result. */
  onSuperseded?: (err: AttemptSupersededError) => void;
}

export class DbTaskStore implements TaskStore {
  private n = 0;

  /** `run`: the job attempt the writes belong to (fenced and keyed); none: a plain store. */
  constructor(
    private readonly db: Db,
    private readonly run?: TaskRun,
  ) {}

  async list(sessionId: string): Promise<Task[]> {
    const { sessionTasks } = tablesOf(this.db);
    const row = await first(
      this.db
        .select({ data: sessionTasks.data })
        .from(sessionTasks)
        .where(eq(sessionTasks.sessionId, sessionId))
        .limit(1),
    );
    return boardOf(row?.data).tasks;
  }

  async update<T>(sessionId: string, change: (board: TaskBoard) => T): Promise<T> {
    const keyed = this.run ? { ...this.run, key: `${this.run.jobId}:${this.n++}` } : undefined;
    try {
      return await (dialectOf(this.db) === "pg"
        ? updatePg(this.db as unknown as PgDb, sessionId, change, keyed)
        : updateSqlite(this.db, sessionId, change, keyed));
    } catch (err) {
      if (err instanceof AttemptSupersededError) this.run?.onSuperseded?.(err);
      throw err;
    }
  }
}

type Keyed = TaskRun & { key: string };

function boardOf(data: BoardData | undefined): TaskBoard {
  if (!data) return { tasks: [], lastId: 0 };
  return { tasks: data.tasks as Task[], lastId: data.lastId };
}

/** The board as saved, with `key`'s result added to the kept ones. */
function saved(board: TaskBoard, before: BoardData | undefined, keyed: Keyed | undefined, result: unknown) {
  const applied = [
    ...(before?.applied ?? []),
    ...(keyed ? [{ key: keyed.key, result: result ?? null }] : []),
  ];
  return {
    tasks: board.tasks,
    lastId: board.lastId,
    ...(applied.length > 0 ? { applied: applied.slice(-APPLIED_KEPT) } : {}),
  };
}

/** What an earlier attempt of the job answered for this update, if it saved one. */
function replayed(data: BoardData | undefined, keyed: Keyed | undefined): Applied | undefined {
  return keyed ? data?.applied?.find((a) => a.key === keyed.key) : undefined;
}

function updateSqlite<T>(
  db: Db,
  sessionId: string,
  change: (board: TaskBoard) => T,
  keyed: Keyed | undefined,
): T {
  const { sessionTasks, jobs } = tablesOf(db);
  return db.transaction(
    (tx) => {
      // IMMEDIATE: no claim can commit between this check and the write.
      if (keyed && !tx.select({ id: jobs.id }).from(jobs).where(heldBy(jobs, keyed)).get())
        throw new AttemptSupersededError(keyed.jobId);
      const row = tx
        .select({ data: sessionTasks.data })
        .from(sessionTasks)
        .where(eq(sessionTasks.sessionId, sessionId))
        .get();
      const again = replayed(row?.data, keyed);
      if (again) return again.result as T;
      const board = boardOf(row?.data);
      const result = change(board);
      const data = saved(board, row?.data, keyed, result);
      const updatedAt = nowIso();
      tx.insert(sessionTasks)
        .values({ sessionId, data, updatedAt })
        .onConflictDoUpdate({ target: sessionTasks.sessionId, set: { data, updatedAt } })
        .run();
      return result;
    },
    { behavior: "immediate" },
  );
}

async function updatePg<T>(
  db: PgDb,
  sessionId: string,
  change: (board: TaskBoard) => T,
  keyed: Keyed | undefined,
): Promise<T> {
  const { sessionTasks, jobs } = pgSchema;
  const { jobs: handleJobs } = tablesOf(db as unknown as Db);
  return db.transaction(async (tx) => {
    // A missing row cannot be locked: create the empty board first (a concurrent creator's
    // insert waits for ours, then does nothing), so that every updater locks the same row.
    await tx
      .insert(sessionTasks)
      .values({ sessionId, data: { tasks: [], lastId: 0 }, updatedAt: nowIso() })
      .onConflictDoNothing();
    const [row] = await tx
      .select({ data: sessionTasks.data })
      .from(sessionTasks)
      .where(eq(sessionTasks.sessionId, sessionId))
      .for("update");
    // FOR SHARE: a take-over's claim (an UPDATE of the row) waits for this transaction, and one
    // that committed first is seen (the condition is checked again on the row it left).
    if (keyed) {
      const [held] = await tx
        .select({ id: jobs.id })
        .from(jobs)
        .where(heldBy(handleJobs, keyed))
        .for("share");
      if (!held) throw new AttemptSupersededError(keyed.jobId);
    }
    const again = replayed(row?.data, keyed);
    if (again) return again.result as T;
    const board = boardOf(row?.data);
    const result = change(board);
    await tx
      .update(sessionTasks)
      .set({ data: saved(board, row?.data, keyed, result), updatedAt: nowIso() })
      .where(eq(sessionTasks.sessionId, sessionId));
    return result;
  });
}
