/**
 * The durable TaskStore behind TaskCreate/Get/List/Update: one `session_tasks` row per session
 * holding `{tasks, lastId}`. Every update is one IMMEDIATE transaction (read, change, write), so
 * concurrent task calls of a session serialize and a throwing change saves nothing.
 */
import { eq } from "drizzle-orm";
import { nowIso } from "../../service/clock.js";
import type { Task, TaskBoard, TaskStore } from "../../toolkit/tasks/task.js";
import type { Db } from "../open.js";
import { sessionTasks } from "../schema.js";

export class SqliteTaskStore implements TaskStore {
  constructor(private readonly db: Db) {}

  async list(sessionId: string): Promise<Task[]> {
    return readBoard(this.db, sessionId).tasks;
  }

  async update<T>(sessionId: string, change: (board: TaskBoard) => T): Promise<T> {
    return this.db.transaction(
      (tx) => {
        const board = readBoard(tx, sessionId);
        const result = change(board);
        const data = { tasks: board.tasks, lastId: board.lastId };
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
}

type Reader = Pick<Db, "select">;

function readBoard(db: Reader, sessionId: string): TaskBoard {
  const row = db.select().from(sessionTasks).where(eq(sessionTasks.sessionId, sessionId)).get();
  if (!row) return { tasks: [], lastId: 0 };
  return { tasks: row.data.tasks as Task[], lastId: row.data.lastId };
}
