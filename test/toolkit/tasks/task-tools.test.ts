import { beforeEach, describe, expect, it } from "vitest";
import { createHostContext } from "../../../src/toolkit/host-context.js";
import type { ToolRunContext } from "../../../src/toolkit/run-context.js";
import { MemoryTaskStore } from "../../../src/toolkit/tasks/memory-task-store.js";
import { createTaskTools } from "../../../src/toolkit/tasks/task-tools.js";
import { Toolkit } from "../../../src/toolkit/toolkit.js";

const kit = new Toolkit({ tools: createTaskTools() });
let ctx: ToolRunContext;
let store: MemoryTaskStore;

beforeEach(() => {
  store = new MemoryTaskStore();
  ctx = createHostContext({ sessionId: "ses_tasks", taskStore: store });
});

async function call(name: string, input: Record<string, unknown>): Promise<{ text: string; state: string }> {
  const r = await kit.callTool(name, input, ctx);
  return { text: r.content.map((b) => (b.type === "text" ? b.text : "")).join(""), state: r.state };
}

async function create(subject: string, extra: Record<string, unknown> = {}): Promise<string> {
  return (await call("TaskCreate", { subject, description: `Do ${subject}`, ...extra })).text;
}

const COMPLETED =
  "\n\nTask completed. Call TaskList now to find your next available task or see if your work unblocked others.";

describe("task tool schemas", () => {
  const schemas = Object.fromEntries(
    kit.getToolSchemas().map((s) => [s.function.name, s.function.parameters]),
  );

  it("lists the four tools in order with the reference's flags", () => {
    expect(Object.keys(schemas)).toEqual(["TaskCreate", "TaskGet", "TaskList", "TaskUpdate"]);
    const flags = createTaskTools().map((t) => [
      t.name,
      t.isReadOnly,
      t.isConcurrencySafe,
      t.isStateInjected,
    ]);
    expect(flags).toEqual([
      ["TaskCreate", false, true, true],
      ["TaskGet", true, true, true],
      ["TaskList", true, true, true],
      ["TaskUpdate", false, true, true],
    ]);
    for (const t of createTaskTools()) expect(t.checkPermissions({}, {} as never).behavior).toBe("allow");
  });

  it("TaskCreate and TaskGet and TaskList", () => {
    expect(schemas.TaskCreate).toEqual({
      properties: {
        subject: { description: "A brief title for the task", type: "string" },
        description: { description: "What needs to be done", type: "string" },
        metadata: {
          anyOf: [{ additionalProperties: true, type: "object" }, { type: "null" }],
          default: null,
          description: "Arbitrary metadata to attach to the task",
        },
      },
      required: ["subject", "description"],
      type: "object",
    });
    expect(schemas.TaskGet).toEqual({
      properties: { task_id: { description: "The ID of the task to retrieve", type: "string" } },
      required: ["task_id"],
      type: "object",
    });
    expect(JSON.stringify(schemas.TaskList)).toBe('{"properties":{},"type":"object"}');
  });

  it("TaskUpdate", () => {
    const opt = (schema: unknown, description: string) => ({
      anyOf: [schema, { type: "null" }],
      default: null,
      description,
    });
    const ids = { items: { type: "string" }, type: "array" };
    expect(schemas.TaskUpdate).toEqual({
      properties: {
        task_id: { description: "The task id.", type: "string" },
        subject: opt({ type: "string" }, "New subject for the task"),
        description: opt({ type: "string" }, "New description for the task"),
        add_blocks: opt(ids, "Task IDs that this task blocks"),
        status: opt(
          { enum: ["pending", "in_progress", "completed", "deleted"], type: "string" },
          "New status for the task",
        ),
        add_blocked_by: opt(ids, "Task IDs that block this task"),
        owner: opt({ type: "string" }, "New owner for the task"),
        metadata: opt(
          { additionalProperties: true, type: "object" },
          "Metadata keys to merge into the task. Set a key to null to delete it.",
        ),
      },
      required: ["task_id"],
      type: "object",
    });
  });
});

describe("TaskCreate and TaskList", () => {
  it("creates numbered tasks and lists them", async () => {
    expect(await create("Task 1")).toBe("Task (id=1) created successfully: Task 1");
    expect(await create("Task 2")).toBe("Task (id=2) created successfully: Task 2");
    expect(await call("TaskList", {})).toEqual({
      text: "1 [pending] Task 1\n2 [pending] Task 2",
      state: "success",
    });
  });

  it("says when there are no tasks", async () => {
    expect((await call("TaskList", {})).text).toBe("No tasks available.");
  });

  it("renders owner and blockers with no space before them, completed blockers included", async () => {
    await create("Task 1");
    await create("Task 2");
    await call("TaskUpdate", { task_id: "2", owner: "agent-1", add_blocked_by: ["1"] });
    await call("TaskUpdate", { task_id: "1", status: "completed" });
    expect((await call("TaskList", {})).text).toBe(
      "1 [completed] Task 1\n2 [pending] Task 2(agent-1)[blocked by 1]",
    );
  });

  it("keeps tasks per session", async () => {
    await create("Mine");
    const other = createHostContext({ sessionId: "ses_other", taskStore: store });
    const r = await kit.callTool("TaskList", {}, other);
    expect(r.content[0]).toMatchObject({ text: "No tasks available." });
  });

  it("validates input like the agent level", async () => {
    expect(await call("TaskCreate", { subject: "x" })).toEqual({
      text: "Input validation failed for tool 'TaskCreate': 'description' is a required property",
      state: "error",
    });
  });

  it("is an error result without a task store", async () => {
    ctx = createHostContext({ taskStore: undefined });
    expect(await call("TaskList", {})).toEqual({
      text: "TaskList requires a task store (ToolRunContext.taskStore).",
      state: "error",
    });
  });
});

describe("TaskGet", () => {
  it("answers an unknown id", async () => {
    expect(await call("TaskGet", { task_id: "9" })).toEqual({ text: "Task not found", state: "error" });
  });

  it("shows the required lines only for a bare task", async () => {
    await create("Write tests");
    expect((await call("TaskGet", { task_id: "1" })).text).toBe(
      "Task (id=1): Write tests\nStatus: pending\nDescription: Do Write tests",
    );
  });

  it("shows owner, blockers, blocked tasks and metadata as JSON", async () => {
    await create("A");
    await create("B", { metadata: { priority: "high", tags: ["test"], done: true, n: null } });
    await create("C");
    await call("TaskUpdate", { task_id: "2", owner: "agent-1", add_blocked_by: ["1"], add_blocks: ["3"] });
    expect((await call("TaskGet", { task_id: "2" })).text).toBe(
      [
        "Task (id=2): B",
        "Status: pending",
        "Description: Do B",
        "Owner: agent-1",
        "Blocked by: #1",
        "Blocks: #3",
        'Metadata: {"priority":"high","tags":["test"],"done":true,"n":null}',
      ].join("\n"),
    );
  });
});

describe("TaskUpdate", () => {
  beforeEach(async () => {
    await create("Task 1");
    await create("Task 2");
  });

  it("answers an unknown id", async () => {
    expect(await call("TaskUpdate", { task_id: "7", status: "completed" })).toEqual({
      text: "TaskNotFoundError: The task (id=7) does not exist.",
      state: "error",
    });
  });

  it("applies the fields in the fixed order and lists them", async () => {
    const r = await call("TaskUpdate", {
      metadata: { k: 1 },
      owner: "me",
      status: "in_progress",
      add_blocked_by: ["1"],
      subject: "Renamed",
      task_id: "2",
    });
    expect(r).toEqual({
      text: "Update task (id=2) subject, add_blocked_by, status, owner, metadata.",
      state: "success",
    });
    const [t1, t2] = await store.list("ses_tasks");
    expect(t1).toMatchObject({ blocks: ["2"], blockedBy: [] });
    expect(t2).toMatchObject({ subject: "Renamed", state: "in_progress", owner: "me", blockedBy: ["1"] });
  });

  it("says when nothing was applied: empty subject, unknown or existing blockers, empty metadata", async () => {
    await call("TaskUpdate", { task_id: "2", add_blocks: ["1"] });
    const r = await call("TaskUpdate", {
      task_id: "2",
      subject: "",
      add_blocks: ["1", "9", "2"],
      metadata: {},
    });
    expect(r.text).toBe(
      "No updates were made to the task (id=2). Make sure you provided at least one field to update and the values are correct.",
    );
  });

  it("applies an empty description (not null)", async () => {
    expect((await call("TaskUpdate", { task_id: "1", description: "" })).text).toBe(
      "Update task (id=1) description.",
    );
  });

  it("merges metadata and deletes keys set to null", async () => {
    await call("TaskUpdate", { task_id: "1", metadata: { a: 1, b: 2 } });
    await call("TaskUpdate", { task_id: "1", metadata: { a: null, c: { d: [1] } } });
    expect((await call("TaskGet", { task_id: "1" })).text).toContain('Metadata: {"b":2,"c":{"d":[1]}}');
  });

  it("appends the completed hint whenever the task ends completed", async () => {
    expect((await call("TaskUpdate", { task_id: "1", status: "completed" })).text).toBe(
      `Update task (id=1) status.${COMPLETED}`,
    );
    expect((await call("TaskUpdate", { task_id: "1", owner: "x" })).text).toBe(
      `Update task (id=1) owner.${COMPLETED}`,
    );
  });

  it("allows every status transition", async () => {
    await call("TaskUpdate", { task_id: "1", status: "completed" });
    expect((await call("TaskUpdate", { task_id: "1", status: "pending" })).text).toBe(
      "Update task (id=1) status.",
    );
  });

  it("deletes a task and removes it from every dependency list", async () => {
    await call("TaskUpdate", { task_id: "2", add_blocked_by: ["1"] });
    expect((await call("TaskUpdate", { task_id: "1", status: "deleted" })).text).toBe(
      "Task (id=1) has been deleted.",
    );
    expect((await call("TaskList", {})).text).toBe("2 [pending] Task 2");
    expect(await call("TaskGet", { task_id: "1" })).toEqual({ text: "Task not found", state: "error" });
  });

  it("does not apply the other fields of a deleting call, and names them", async () => {
    const r = await call("TaskUpdate", {
      task_id: "2",
      status: "deleted",
      subject: "X",
      add_blocks: ["1"],
      owner: "o",
    });
    expect(r.text).toBe(
      "Task (id=2) has been deleted. The other fields of this call were not applied: subject, add_blocks, owner.",
    );
    const [t1] = await store.list("ses_tasks");
    expect(t1).toMatchObject({ blocks: [], blockedBy: [] });
  });

  it("never reuses an id, not even after deleting the highest one", async () => {
    await create("Task 3");
    await call("TaskUpdate", { task_id: "3", status: "deleted" });
    expect(await create("Task 4")).toBe("Task (id=4) created successfully: Task 4");
    await call("TaskUpdate", { task_id: "4", status: "deleted" });
    await call("TaskUpdate", { task_id: "2", status: "deleted" });
    expect(await create("Task 5")).toBe("Task (id=5) created successfully: Task 5");
    expect((await call("TaskList", {})).text).toBe("1 [pending] Task 1\n5 [pending] Task 5");
  });
});
