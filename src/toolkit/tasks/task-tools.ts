/** The four task tools in the reference order, sharing the session's `ctx.taskStore`. */
import type { ToolBase, ToolOptions } from "../tool-base.js";
import { TaskCreateTool } from "./task-create.js";
import { TaskGetTool } from "./task-get.js";
import { TaskListTool } from "./task-list.js";
import { TaskUpdateTool } from "./task-update.js";

/** Fresh TaskCreate, TaskGet, TaskList and TaskUpdate instances. */
export function createTaskTools(opts: ToolOptions = {}): ToolBase[] {
  return [new TaskCreateTool(opts), new TaskGetTool(opts), new TaskListTool(opts), new TaskUpdateTool(opts)];
}
