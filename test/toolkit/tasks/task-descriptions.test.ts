import { describe, expect, it } from "vitest";
import { createTaskTools } from "../../../src/toolkit/tasks/task-tools.js";

const byName = Object.fromEntries(createTaskTools().map((t) => [t.name, t.description]));

describe("task tool descriptions (reference texts; edits only where the text promised more)", () => {
  it("TaskGet is the reference's text", () => {
    expect(byName.TaskGet).toBe(
      [
        "Use this tool to retrieve a task by its ID from the task list.",
        "",
        "## When to Use This Tool",
        "",
        "- When you need the full description and context before starting work on a task",
        "- To understand task dependencies (what it blocks, what blocks it)",
        "- After being assigned a task, to get complete requirements",
        "",
        "## Output",
        "",
        "Returns full task details:",
        "- **subject**: Task title",
        "- **description**: Detailed requirements and context",
        "- **status**: 'pending', 'in_progress', or 'completed'",
        "- **blocks**: Tasks waiting on this one to complete",
        "- **blockedBy**: Tasks that must complete before this one can start",
        "",
        "## Tips",
        "",
        "- After fetching a task, verify its blockedBy list is empty before beginning work.",
        "- Use TaskList to see all tasks in summary form.",
      ].join("\n"),
    );
  });

  it.each([
    [
      "TaskCreate",
      "Use this tool to create a structured task list for your current coding session. This helps you track progress, organize complex tasks, and demonstrate thoroughness to the user.",
    ],
    ["TaskList", "Use this tool to list all tasks in the task list."],
    ["TaskUpdate", "Use this tool to update a task in the task list."],
  ])("%s starts with the reference's first line", (name, first) => {
    expect(byName[name]?.split("\n")[0]).toBe(first);
  });

  it("names the tools' real argument names in examples and tips", () => {
    expect(byName.TaskUpdate).toContain('{"task_id": "2", "add_blocked_by": ["1"]}');
    expect(byName.TaskUpdate).toContain("the other fields of that call are not applied");
    expect(byName.TaskCreate).toContain("(add_blocks/add_blocked_by)");
  });
});
