/**
 * TaskUpdate's logic on a board (docs/toolkit.md#tasks), with Toolshed's deletion rule: a
 * `deleted` status removes the task alone; the call's other fields are not applied and the
 * result names them.
 */
import type { Task, TaskBoard, TaskState } from "./task.js";

/** TaskUpdate's parsed input. */
export interface TaskUpdateFields {
  task_id: string;
  subject?: string | null;
  description?: string | null;
  add_blocks?: string[] | null;
  status?: TaskState | "deleted" | null;
  add_blocked_by?: string[] | null;
  owner?: string | null;
  metadata?: Record<string, unknown> | null;
}

/** The result text and whether it is an error. */
export interface TaskUpdateOutcome {
  text: string;
  isError: boolean;
}

const COMPLETED_HINT =
  "\n\nTask completed. Call TaskList now to find your next available task or see if your work unblocked others.";

const OTHER_FIELDS = ["subject", "description", "add_blocks", "add_blocked_by", "owner", "metadata"] as const;

/** Applies one TaskUpdate call to `board` in place. */
export function applyTaskUpdate(board: TaskBoard, input: TaskUpdateFields): TaskUpdateOutcome {
  const id = input.task_id;
  const task = board.tasks.find((t) => t.id === id);
  if (!task) return { text: `TaskNotFoundError: The task (id=${id}) does not exist.`, isError: true };
  if (input.status === "deleted") return deleteTask(board, input);

  const applied: string[] = [];
  if (input.subject) {
    task.subject = input.subject;
    applied.push("subject");
  }
  if (input.description != null) {
    task.description = input.description;
    applied.push("description");
  }
  if (link(board, task, input.add_blocks ?? [], "blocks")) applied.push("add_blocks");
  if (link(board, task, input.add_blocked_by ?? [], "blockedBy")) applied.push("add_blocked_by");
  if (input.status) {
    task.state = input.status;
    applied.push("status");
  }
  if (input.owner != null) {
    task.owner = input.owner;
    applied.push("owner");
  }
  if (input.metadata && Object.keys(input.metadata).length) {
    for (const [key, value] of Object.entries(input.metadata)) {
      if (value === null) delete task.metadata[key];
      else task.metadata[key] = value;
    }
    applied.push("metadata");
  }

  let text = applied.length
    ? `Update task (id=${id}) ${applied.join(", ")}.`
    : `No updates were made to the task (id=${id}). Make sure you provided at least one field to update and the values are correct.`;
  if (task.state === "completed") text += COMPLETED_HINT;
  return { text, isError: false };
}

/** Adds edges from `task` to existing, new, other tasks; true when at least one was added. */
function link(board: TaskBoard, task: Task, ids: string[], side: "blocks" | "blockedBy"): boolean {
  let added = false;
  for (const otherId of ids) {
    const other = board.tasks.find((t) => t.id === otherId);
    // A task cannot block itself (the reference allows it; it only produces a dead lock).
    if (!other || other === task || task[side].includes(otherId)) continue;
    const [blocker, blocked] = side === "blocks" ? [task, other] : [other, task];
    if (!blocker.blocks.includes(blocked.id)) blocker.blocks.push(blocked.id);
    if (!blocked.blockedBy.includes(blocker.id)) blocked.blockedBy.push(blocker.id);
    added = true;
  }
  return added;
}

function deleteTask(board: TaskBoard, input: TaskUpdateFields): TaskUpdateOutcome {
  const id = input.task_id;
  board.tasks = board.tasks.filter((t) => t.id !== id);
  for (const t of board.tasks) {
    t.blocks = t.blocks.filter((b) => b !== id);
    t.blockedBy = t.blockedBy.filter((b) => b !== id);
  }
  const ignored = OTHER_FIELDS.filter((f) => input[f] != null);
  const note = ignored.length
    ? ` The other fields of this call were not applied: ${ignored.join(", ")}.`
    : "";
  return { text: `Task (id=${id}) has been deleted.${note}`, isError: false };
}
