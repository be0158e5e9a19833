/**
 * The TaskStore on real SQLite and on Postgres (migrations applied): atomic updates, ids never
 * reused, and concurrent updates of one board serialize, on Postgres also across two pools (two
 * processes' connections).
 */
import { beforeEach, expect, it } from "vitest";
import { DbTaskStore } from "../../src/db/stores/task-store.js";
import { createHostContext } from "../../src/toolkit/host-context.js";
import { createTaskTools } from "../../src/toolkit/tasks/task-tools.js";
import { Toolkit } from "../../src/toolkit/toolkit.js";
import { describeDialects, seedDialectSession } from "../support/dialects.js";

const task = (id: string) => ({
  id,
  subject: `task ${id}`,
  description: "",
  metadata: {},
  createdAt: "2026-01-01T00:00:00.000Z",
  state: "pending" as const,
  owner: null,
  blocks: [],
  blockedBy: [],
});

let n = 0;

describeDialects("DbTaskStore", (current) => {
  let a: string;
  let b: string;
  beforeEach(async () => {
    n++;
    a = `ses_a${n}`;
    b = `ses_b${n}`;
    await seedDialectSession(current().db, a);
    await seedDialectSession(current().db, b);
  });

  it("starts empty and keeps each session's board apart", async () => {
    const store = new DbTaskStore(current().db);
    expect(await store.list(a)).toEqual([]);
    await store.update(a, (board) => {
      board.lastId += 1;
      board.tasks.push(task(String(board.lastId)));
    });
    expect((await store.list(a)).map((t) => t.id)).toEqual(["1"]);
    expect(await store.list(b)).toEqual([]);
  });

  it("never reuses an id after the highest task is deleted", async () => {
    const store = new DbTaskStore(current().db);
    for (let i = 0; i < 2; i++) {
      await store.update(a, (board) => {
        board.lastId += 1;
        board.tasks.push(task(String(board.lastId)));
      });
    }
    await store.update(a, (board) => {
      board.tasks = board.tasks.filter((t) => t.id !== "2");
    });
    const id = await store.update(a, (board) => {
      board.lastId += 1;
      board.tasks.push(task(String(board.lastId)));
      return board.lastId;
    });
    expect(id).toBe(3);
    expect((await new DbTaskStore(current().other).list(a)).map((t) => t.id)).toEqual(["1", "3"]);
  });

  it("a throwing change saves nothing", async () => {
    const store = new DbTaskStore(current().db);
    await expect(
      store.update(a, (board) => {
        board.lastId = 99;
        board.tasks.push(task("99"));
        throw new Error("nope");
      }),
    ).rejects.toThrow("nope");
    await store.update(a, (board) => expect(board).toEqual({ tasks: [], lastId: 0 }));
  });

  it("concurrent creations through the tools, from two handles, get distinct ids", async () => {
    const toolkit = new Toolkit({ tools: createTaskTools() });
    const stores = [new DbTaskStore(current().db), new DbTaskStore(current().other)];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        toolkit.callTool(
          "TaskCreate",
          { subject: `s${i}`, description: "d" },
          createHostContext({ sessionId: a, taskStore: stores[i % 2]! }),
        ),
      ),
    );
    expect(results.every((r) => r.state === "success")).toBe(true);
    const ids = (await stores[0]!.list(a)).map((t) => Number(t.id)).sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
