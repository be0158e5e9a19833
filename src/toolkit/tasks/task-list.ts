/** `TaskList` (docs/toolkit.md#tasks): one summary line per task, in creation order. */
import { z } from "zod";
import { textChunk } from "../response.js";
import type { ToolCallOutput, ToolOptions } from "../tool-base.js";
import type { Task, TaskStore } from "./task.js";
import { TaskTool } from "./task-tool.js";

/** TaskList takes no arguments. */
export const TaskListInput = z.object({});

const INPUT_SCHEMA = { properties: {}, type: "object" } as const;

const DESCRIPTION = `Use this tool to list all tasks in the task list.

## When to Use This Tool
- To see what tasks are available to work on (status: 'pending', no owner, not blocked)
- To check overall progress on the project
- To find tasks that are blocked and need dependencies resolved
- After completing a task, to check for newly unblocked work or claim the next available task
- **Prefer working on tasks in ID order** (lowest ID first) when multiple tasks are available, as earlier tasks often set up context for later ones

## Output

Returns a summary of each task:
- **id**: Task identifier (use with TaskGet, TaskUpdate)
- **subject**: Brief description of the task
- **status**: 'pending', 'in_progress', or 'completed'
- **owner**: Agent ID if assigned, empty if available
- **blockedBy**: List of the IDs of the tasks blocking this one (completed ones included)

Use TaskGet with a specific task ID to view full details including description and metadata.`;

/** Lists the session's tasks. */
export class TaskListTool extends TaskTool<typeof TaskListInput> {
  constructor(opts: ToolOptions = {}) {
    super("TaskList", DESCRIPTION, INPUT_SCHEMA, TaskListInput, true, opts);
  }

  protected async run(
    _input: z.output<typeof TaskListInput>,
    store: TaskStore,
    sessionId: string,
  ): Promise<ToolCallOutput> {
    const tasks = await store.list(sessionId);
    if (tasks.length === 0) return textChunk("No tasks available.");
    return textChunk(tasks.map(summaryLine).join("\n"));
  }
}

/** `{id} [{state}] {subject}({owner})[blocked by 1, 2]`, no spaces before the optional parts. */
export function summaryLine(task: Task): string {
  const owner = task.owner ? `(${task.owner})` : "";
  const blocked = task.blockedBy.length ? `[blocked by ${task.blockedBy.join(", ")}]` : "";
  return `${task.id} [${task.state}] ${task.subject}${owner}${blocked}`;
}
