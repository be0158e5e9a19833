/** An in-memory TaskStore for library hosts and tests (the service's one is durable, on SQLite). */
import type { Task, TaskBoard, TaskStore } from "./task.js";

/** Boards per session, copied in and out so callers cannot alias stored tasks. */
export class MemoryTaskStore implements TaskStore {
  private readonly boards = new Map<string, TaskBoard>();

  async list(sessionId: string): Promise<Task[]> {
    return structuredClone(this.boards.get(sessionId)?.tasks ?? []);
  }

  async update<T>(sessionId: string, change: (board: TaskBoard) => T): Promise<T> {
    // `change` is synchronous, so working on a copy and swapping it in is atomic here.
    const board = structuredClone(this.boards.get(sessionId) ?? { tasks: [], lastId: 0 });
    const result = change(board);
    this.boards.set(sessionId, board);
    return result;
  }
}
