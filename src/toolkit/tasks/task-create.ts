/** `TaskCreate` (docs/toolkit.md#tasks): appends a pending task; its id is never reused. */
import { z } from "zod";
import { textChunk } from "../response.js";
import type { ToolCallOutput, ToolOptions } from "../tool-base.js";
import type { Task, TaskStore } from "./task.js";
import { nullable, TaskTool } from "./task-tool.js";

/** TaskCreate's input (validation twin of the JSON schema below). */
export const TaskCreateInput = z.object({
  subject: z.string(),
  description: z.string(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

const INPUT_SCHEMA = {
  properties: {
    subject: { description: "A brief title for the task", type: "string" },
    description: { description: "What needs to be done", type: "string" },
    metadata: nullable(
      { additionalProperties: true, type: "object" },
      "Arbitrary metadata to attach to the task",
    ),
  },
  required: ["subject", "description"],
  type: "object",
} as const;

const DESCRIPTION = `Use this tool to create a structured task list for your current coding session. This helps you track progress, organize complex tasks, and demonstrate thoroughness to the user.
It also helps the user understand the progress of the task and overall progress of their requests.

## When to Use This Tool

Use this tool proactively in these scenarios:

- Complex multi-step tasks - When a task requires 3 or more distinct steps or actions
- Non-trivial and complex tasks - Tasks that require careful planning or multiple operations
- Plan mode - When using plan mode, create a task list to track the work
- User explicitly requests todo list - When the user directly asks you to use the todo list
- User provides multiple tasks - When users provide a list of things to be done (numbered or comma-separated)
- After receiving new instructions - Immediately capture user requirements as tasks
- When you start working on a task - Mark it as in_progress BEFORE beginning work
- After completing a task - Mark it as completed and add any new follow-up tasks discovered during implementation

## When NOT to Use This Tool

Skip using this tool when:
- There is only a single, straightforward task
- The task is trivial and tracking it provides no organizational benefit
- The task can be completed in less than 3 trivial steps
- The task is purely conversational or informational

NOTE that you should not use this tool if there is only one trivial task to do. In this case you are better off just doing the task directly.

## Task Fields

- **subject**: A brief, actionable title in imperative form (e.g., "Fix authentication bug in login flow")
- **description**: What needs to be done

All tasks are created with status \`pending\`.

## Tips

- Create tasks with clear, specific subjects that describe the outcome
- After creating tasks, use TaskUpdate to set up dependencies (add_blocks/add_blocked_by) if needed
- Check TaskList first to avoid creating duplicate tasks`;

/** Creates a task. */
export class TaskCreateTool extends TaskTool<typeof TaskCreateInput> {
  constructor(opts: ToolOptions = {}) {
    super("TaskCreate", DESCRIPTION, INPUT_SCHEMA, TaskCreateInput, false, opts);
  }

  protected async run(
    input: z.output<typeof TaskCreateInput>,
    store: TaskStore,
    sessionId: string,
  ): Promise<ToolCallOutput> {
    try {
      const task = await store.update(sessionId, (board) => {
        board.lastId += 1;
        const created: Task = {
          id: String(board.lastId),
          subject: input.subject,
          description: input.description,
          metadata: input.metadata ?? {},
          createdAt: new Date().toISOString(),
          state: "pending",
          owner: null,
          blocks: [],
          blockedBy: [],
        };
        board.tasks.push(created);
        return created;
      });
      return textChunk(`Task (id=${task.id}) created successfully: ${task.subject}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return textChunk(`CreateTaskError: ${message}`, { state: "error" });
    }
  }
}
