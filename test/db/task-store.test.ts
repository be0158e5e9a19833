/**
 * The TaskStore on real SQLite and on Postgres (migrations applied): atomic updates, ids never
 * reused, and concurrent updates of one board serialize, on Postgres also across two pools (two
 * processes' connections). A job's store writes once per job: fenced by its attempt, keyed by
 * its job.
 */
import { eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { type Db, tablesOf } from "../../src/db/db.js";
import { DbTaskStore } from "../../src/db/stores/task-store.js";
import { AttemptSupersededError } from "../../src/errors.js";
import { createHostContext } from "../../src/toolkit/host-context.js";
import { createTaskTools } from "../../src/toolkit/tasks/task-tools.js";
import { Toolkit } from "../../src/toolkit/toolkit.js";
import { describeDialects, seedDialectSession } from "../support/dialects.js";
import { jobRow } from "../support/rows.js";

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

/** A job of `sessionId` running its first attempt, as a claim leaves it. */
async function runningJob(db: Db, sessionId: string): Promise<string> {
  const { jobs } = tablesOf(db);
  const row = jobRow({ id: `job_${sessionId}`, tenantId: `ten_${sessionId}`, sessionId, tool: "TaskCreate" });
  await db.insert(jobs).values({ ...row, status: "running", runs: 1 });
  return row.id;
}

/** Another worker takes the job over (its claim: attempt 2). */
async function takeOver(db: Db, jobId: string): Promise<void> {
  const { jobs } = tablesOf(db);
  await db.update(jobs).set({ runs: 2 }).where(eq(jobs.id, jobId));
}

const create = (subject: string) => (board: { tasks: unknown[]; lastId: number }) => {
  board.lastId += 1;
  board.tasks.push(task(String(board.lastId)));
  return { id: String(board.lastId), subject };
};

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

  it("a superseded attempt's write saves nothing and says so (the fence)", async () => {
    const jobId = await runningJob(current().db, a);
    const heard: unknown[] = [];
    const zombie = new DbTaskStore(current().db, { jobId, run: 1, onSuperseded: (e) => heard.push(e) });
    await takeOver(current().other, jobId);
    await expect(zombie.update(a, create("late"))).rejects.toBeInstanceOf(AttemptSupersededError);
    expect(heard).toHaveLength(1);
    expect(await new DbTaskStore(current().other).list(a)).toEqual([]);
    // The attempt that holds the job writes.
    const holder = new DbTaskStore(current().other, { jobId, run: 2 });
    expect(await holder.update(a, create("now"))).toEqual({ id: "1", subject: "now" });
    // A job that ended takes no write either.
    const { jobs } = tablesOf(current().db);
    await current().db.update(jobs).set({ status: "succeeded" }).where(eq(jobs.id, jobId));
    await expect(new DbTaskStore(current().db, { jobId, run: 2 }).update(a, create("x"))).rejects.toThrow(
      AttemptSupersededError,
    );
  });

  it("a take-over's run of the same update answers what the earlier attempt saved (the key)", async () => {
    const jobId = await runningJob(current().db, a);
    // Attempt 1 saved its task, then its worker froze before the finish.
    const first = await new DbTaskStore(current().db, { jobId, run: 1 }).update(a, create("once"));
    await takeOver(current().other, jobId);
    const again = await new DbTaskStore(current().other, { jobId, run: 2 }).update(a, create("once"));
    expect(again).toEqual(first);
    expect((await new DbTaskStore(current().db).list(a)).map((t) => t.id)).toEqual(["1"]);
    // The job's next update is another key: it applies.
    const store = new DbTaskStore(current().other, { jobId, run: 2 });
    await store.update(a, create("first of run 2"));
    expect(await store.update(a, create("second of run 2"))).toEqual({ id: "2", subject: "second of run 2" });
  });
});
