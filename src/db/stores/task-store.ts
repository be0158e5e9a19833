/**
 * The durable TaskStore behind TaskCreate/Get/List/Update: one `session_tasks` row per session
 * holding `{tasks, lastId}`. Every update reads, changes and writes the board in one transaction
 * that holds the session's row for its whole length, so concurrent task calls of a session (from
 * any process) serialize and a throwing change saves nothing. Holding the row is said per
 * dialect (the one place here that needs it): SQLite takes the write lock up front (IMMEDIATE);
 * Postgres makes sure the row exists, then locks it (`SELECT … FOR UPDATE`).
 */
import { eq } from "drizzle-orm";
import { nowIso } from "../../service/clock.js";
import type { Task, TaskBoard, TaskStore } from "../../toolkit/tasks/task.js";
import { type Db, dialectOf, first, tablesOf } from "../db.js";
import type { PgDb } from "../pg/open-pg.js";
import * as pgSchema from "../pg/schema.js";

type BoardData = { tasks: unknown[]; lastId: number };

export class DbTaskStore implements TaskStore {
  constructor(private readonly db: Db) {}

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
    return dialectOf(this.db) === "pg"
      ? updatePg(this.db as unknown as PgDb, sessionId, change)
      : updateSqlite(this.db, sessionId, change);
  }
}

function boardOf(data: BoardData | undefined): TaskBoard {
  if (!data) return { tasks: [], lastId: 0 };
  return { tasks: data.tasks as Task[], lastId: data.lastId };
}

function saved(board: TaskBoard): BoardData {
  return { tasks: board.tasks, lastId: board.lastId };
}

function updateSqlite<T>(db: Db, sessionId: string, change: (board: TaskBoard) => T): T {
  const { sessionTasks } = tablesOf(db);
  return db.transaction(
    (tx) => {
      const row = tx
        .select({ data: sessionTasks.data })
        .from(sessionTasks)
        .where(eq(sessionTasks.sessionId, sessionId))
        .get();
      const board = boardOf(row?.data);
      const result = change(board);
      const data = saved(board);
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

async function updatePg<T>(db: PgDb, sessionId: string, change: (board: TaskBoard) => T): Promise<T> {
  const { sessionTasks } = pgSchema;
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
    const board = boardOf(row?.data);
    const result = change(board);
    await tx
      .update(sessionTasks)
      .set({ data: saved(board), updatedAt: nowIso() })
      .where(eq(sessionTasks.sessionId, sessionId));
    return result;
  });
}
