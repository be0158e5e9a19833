/** `TaskGet` (docs/toolkit.md#tasks): one task's details; metadata rendered as JSON. */
import { z } from "zod";
import { textChunk } from "../response.js";
import type { ToolCallOutput, ToolOptions } from "../tool-base.js";
import type { Task, TaskStore } from "./task.js";
import { TaskTool } from "./task-tool.js";

/** TaskGet's input. */
export const TaskGetInput = z.object({ task_id: z.string() });

const INPUT_SCHEMA = {
  properties: { task_id: { description: "The ID of the task to retrieve", type: "string" } },
  required: ["task_id"],
  type: "object",
} as const;

const DESCRIPTION = `Use this tool to retrieve a task by its ID from the task list.

## When to Use This Tool

- When you need the full description and context before starting work on a task
- To understand task dependencies (what it blocks, what blocks it)
- After being assigned a task, to get complete requirements

## Output

Returns full task details:
- **subject**: Task title
- **description**: Detailed requirements and context
- **status**: 'pending', 'in_progress', or 'completed'
- **blocks**: Tasks waiting on this one to complete
- **blockedBy**: Tasks that must complete before this one can start

## Tips

- After fetching a task, verify its blockedBy list is empty before beginning work.
- Use TaskList to see all tasks in summary form.`;

/** Shows one task. */
export class TaskGetTool extends TaskTool<typeof TaskGetInput> {
  constructor(opts: ToolOptions = {}) {
    super("TaskGet", DESCRIPTION, INPUT_SCHEMA, TaskGetInput, true, opts);
  }

  protected async run(
    input: z.output<typeof TaskGetInput>,
    store: TaskStore,
    sessionId: string,
  ): Promise<ToolCallOutput> {
    const task = (await store.list(sessionId)).find((t) => t.id === input.task_id);
    if (!task) return textChunk("Task not found", { state: "error" });
    return textChunk(renderTask(task));
  }
}

/** The reference's detail lines; the optional ones only when non-empty. */
export function renderTask(task: Task): string {
  const lines = [
    `Task (id=${task.id}): ${task.subject}`,
    `Status: ${task.state}`,
    `Description: ${task.description}`,
  ];
  if (task.owner) lines.push(`Owner: ${task.owner}`);
  if (task.blockedBy.length) lines.push(`Blocked by: ${task.blockedBy.map((id) => `#${id}`).join(", ")}`);
  if (task.blocks.length) lines.push(`Blocks: ${task.blocks.map((id) => `#${id}`).join(", ")}`);
  if (Object.keys(task.metadata).length) lines.push(`Metadata: ${JSON.stringify(task.metadata)}`);
  return lines.join("\n");
}
