/** The SQLite TaskStore on real SQLite (migrations applied): atomic updates, ids never reused. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/open.js";
import { sessions, tenants } from "../../src/db/schema.js";
import { SqliteTaskStore } from "../../src/db/stores/task-store.js";
import { createHostContext } from "../../src/toolkit/host-context.js";
import { createTaskTools } from "../../src/toolkit/tasks/task-tools.js";
import { Toolkit } from "../../src/toolkit/toolkit.js";
import { openTestDb } from "../support/test-db.js";

let dir: string;
let db: Db;
let close: () => void;

function seedSession(id: string): void {
  const now = new Date().toISOString();
  db.insert(tenants)
    .values({ id: `ten_${id}`, name: id, createdAt: now })
    .onConflictDoNothing()
    .run();
  db.insert(sessions)
    .values({
      id,
      tenantId: `ten_${id}`,
      mode: "default",
      cwd: "/workspace",
      home: "/home/agent",
      workingDirectories: [],
      rules: { allow: [], deny: [], ask: [] },
      status: "active",
      createdAt: now,
      lastUsedAt: now,
    })
    .run();
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tst-tasks-"));
  ({ db, close } = openTestDb(join(dir, "t.db")));
  seedSession("ses_a");
  seedSession("ses_b");
});
afterEach(() => {
  close();
  rmSync(dir, { recursive: true, force: true });
});

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

describe("SqliteTaskStore", () => {
  it("starts empty and keeps each session's board apart", async () => {
    const store = new SqliteTaskStore(db);
    expect(await store.list("ses_a")).toEqual([]);
    await store.update("ses_a", (b) => {
      b.lastId += 1;
      b.tasks.push(task(String(b.lastId)));
    });
    expect((await store.list("ses_a")).map((t) => t.id)).toEqual(["1"]);
    expect(await store.list("ses_b")).toEqual([]);
  });

  it("never reuses an id after the highest task is deleted", async () => {
    const store = new SqliteTaskStore(db);
    for (let i = 0; i < 2; i++) {
      await store.update("ses_a", (b) => {
        b.lastId += 1;
        b.tasks.push(task(String(b.lastId)));
      });
    }
    await store.update("ses_a", (b) => {
      b.tasks = b.tasks.filter((t) => t.id !== "2");
    });
    const id = await store.update("ses_a", (b) => {
      b.lastId += 1;
      b.tasks.push(task(String(b.lastId)));
      return b.lastId;
    });
    expect(id).toBe(3);
    expect((await new SqliteTaskStore(db).list("ses_a")).map((t) => t.id)).toEqual(["1", "3"]);
  });

  it("a throwing change saves nothing", async () => {
    const store = new SqliteTaskStore(db);
    await expect(
      store.update("ses_a", (b) => {
        b.lastId = 99;
        b.tasks.push(task("99"));
        throw new Error("nope");
      }),
    ).rejects.toThrow("nope");
    await store.update("ses_a", (b) => expect(b).toEqual({ tasks: [], lastId: 0 }));
  });

  it("concurrent creations through the tools get distinct ids", async () => {
    const store = new SqliteTaskStore(db);
    const toolkit = new Toolkit({ tools: createTaskTools() });
    const ctx = createHostContext({ sessionId: "ses_a", taskStore: store });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        toolkit.callTool("TaskCreate", { subject: `s${i}`, description: "d" }, ctx),
      ),
    );
    expect(results.every((r) => r.state === "success")).toBe(true);
    const ids = (await store.list("ses_a")).map((t) => Number(t.id)).sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
