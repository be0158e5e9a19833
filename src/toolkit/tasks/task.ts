/**
 * The task list of one session (docs/toolkit.md#tasks) and the store the four task
 * tools run against. The service implements the store durably (SQLite); `MemoryTaskStore` is
 * the in-process one for hosts and tests.
 */

/** A task's status; the input field is `status`, the stored field `state` (as the reference). */
export type TaskState = "pending" | "in_progress" | "completed";

/** One task. Ids are decimal strings issued from a per-session counter and never reused. */
export interface Task {
  id: string;
  subject: string;
  description: string;
  metadata: Record<string, unknown>;
  /** ISO timestamp. */
  createdAt: string;
  state: TaskState;
  owner: string | null;
  /** Ids of the tasks this one blocks. */
  blocks: string[];
  /** Ids of the tasks blocking this one. */
  blockedBy: string[];
}

/** Everything a session's task tools read and write: the tasks and the id counter. */
export interface TaskBoard {
  /** In creation order. */
  tasks: Task[];
  /** The highest id ever issued (0 before the first task); deleting a task never lowers it. */
  lastId: number;
}

/** Per-session task persistence; every change runs as one atomic read-modify-write. */
export interface TaskStore {
  /** The session's tasks in creation order. */
  list(sessionId: string): Promise<Task[]>;
  /**
   * Runs `change` on the session's board and saves what it left there, atomically; a throwing
   * `change` saves nothing. Returns what `change` returned.
   */
  update<T>(sessionId: string, change: (board: TaskBoard) => T): Promise<T>;
}
