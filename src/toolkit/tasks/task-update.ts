/** `TaskUpdate` (docs/toolkit.md#tasks): changes one task's fields, dependencies or status. */
import { z } from "zod";
import { textChunk } from "../response.js";
import type { ToolCallOutput, ToolOptions } from "../tool-base.js";
import { applyTaskUpdate } from "./apply-task-update.js";
import type { TaskStore } from "./task.js";
import { nullable, TaskTool } from "./task-tool.js";

const STATUSES = ["pending", "in_progress", "completed", "deleted"] as const;

/** TaskUpdate's input. */
export const TaskUpdateInput = z.object({
  task_id: z.string(),
  subject: z.string().nullish(),
  description: z.string().nullish(),
  add_blocks: z.array(z.string()).nullish(),
  status: z.enum(STATUSES).nullish(),
  add_blocked_by: z.array(z.string()).nullish(),
  owner: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

const STRING = { type: "string" };
const IDS = { items: { type: "string" }, type: "array" };

const INPUT_SCHEMA = {
  properties: {
    task_id: { description: "The task id.", type: "string" },
    subject: nullable(STRING, "New subject for the task"),
    description: nullable(STRING, "New description for the task"),
    add_blocks: nullable(IDS, "Task IDs that this task blocks"),
    status: nullable({ enum: [...STATUSES], type: "string" }, "New status for the task"),
    add_blocked_by: nullable(IDS, "Task IDs that block this task"),
    owner: nullable(STRING, "New owner for the task"),
    metadata: nullable(
      { additionalProperties: true, type: "object" },
      "Metadata keys to merge into the task. Set a key to null to delete it.",
    ),
  },
  required: ["task_id"],
  type: "object",
} as const;

const DESCRIPTION = `Use this tool to update a task in the task list.

## When to Use This Tool

**Mark tasks as resolved:**
- When you have completed the work described in a task
- When a task is no longer needed or has been superseded
- IMPORTANT: Always mark your assigned tasks as resolved when you finish them
- After resolving, call TaskList to find your next task

- ONLY mark a task as completed when you have FULLY accomplished it
- If you encounter errors, blockers, or cannot finish, keep the task as in_progress
- When blocked, create a new task describing what needs to be resolved
- Never mark a task as completed if:
  - Tests are failing
  - Implementation is partial
  - You encountered unresolved errors
  - You couldn't find necessary files or dependencies

**Delete tasks:**
- When a task is no longer relevant or was created in error
- Setting status to \`deleted\` permanently removes the task; the other fields of that call are not applied

**Update task details:**
- When requirements change or become clearer
- When establishing dependencies between tasks

## Fields You Can Update

- **status**: The task status (see Status Workflow below)
- **subject**: Change the task title (imperative form, e.g., "Run tests")
- **description**: Change the task description
- **owner**: Change the task owner (agent name)
- **metadata**: Merge metadata keys into the task (set a key to null to delete it)
- **add_blocks**: Mark tasks that cannot start until this one completes
- **add_blocked_by**: Mark tasks that must complete before this one can start

## Status Workflow

Status progresses: \`pending\` → \`in_progress\` → \`completed\`

Use \`deleted\` to permanently remove a task.

## Staleness

Make sure to read a task's latest state using \`TaskGet\` before updating it.

## Examples

Mark task as in progress when starting work:
\`\`\`json
{"task_id": "1", "status": "in_progress"}
\`\`\`

Mark task as completed after finishing work:
\`\`\`json
{"task_id": "1", "status": "completed"}
\`\`\`

Delete a task:
\`\`\`json
{"task_id": "1", "status": "deleted"}
\`\`\`

Claim a task by setting owner:
\`\`\`json
{"task_id": "1", "owner": "my-name"}
\`\`\`

Set up task dependencies:
\`\`\`json
{"task_id": "2", "add_blocked_by": ["1"]}
\`\`\``;

/** Updates one task. */
export class TaskUpdateTool extends TaskTool<typeof TaskUpdateInput> {
  constructor(opts: ToolOptions = {}) {
    super("TaskUpdate", DESCRIPTION, INPUT_SCHEMA, TaskUpdateInput, false, opts);
  }

  protected async run(
    input: z.output<typeof TaskUpdateInput>,
    store: TaskStore,
    sessionId: string,
  ): Promise<ToolCallOutput> {
    const outcome = await store.update(sessionId, (board) => applyTaskUpdate(board, input));
    return textChunk(outcome.text, { state: outcome.isError ? "error" : "running" });
  }
}
