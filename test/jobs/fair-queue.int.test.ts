/**
 * The queue adapter passes fair priorities to BullMQ (real Redis, unique prefix): with tenant A's
 * 30 calls waiting (priorities 1..30) and tenant B's 3 enqueued after them (1..3), a single
 * worker interleaves B's calls with A's first ones instead of running them last. A job moved to
 * "delayed" by session ordering keeps its priority when promoted.
 */
import { DelayedError, Worker } from "bullmq";
import { afterAll, expect, it } from "vitest";
import { CALLS_QUEUE, type RunCall } from "../../src/jobs/catalog.js";
import { testQueue } from "../support/test-queue.js";

const { prefix, redis, adapter, drop } = testQueue("fair");

afterAll(drop);

it("interleaves a quiet tenant's calls with a flooding tenant's backlog", async () => {
  for (let i = 1; i <= 30; i++) await adapter.enqueue(`job_a${i}`, { priority: i });
  for (let i = 1; i <= 3; i++) await adapter.enqueue(`job_b${i}`, { priority: i });
  await adapter.enqueue("job_late", { priority: 2 });
  const seen: string[] = [];
  let parked = false;
  const worker = new Worker<RunCall>(
    CALLS_QUEUE,
    async (job, token) => {
      // The first time it comes up, job_late is held back as if its session were busy.
      if (job.data.jobId === "job_late" && !parked) {
        parked = true;
        await job.moveToDelayed(Date.now() + 60_000, token);
        setTimeout(() => void adapter.promote("job_late"), 10);
        throw new DelayedError();
      }
      seen.push(job.data.jobId);
      await new Promise((r) => setTimeout(r, 20)); // slow enough for the promotion to land early
    },
    { connection: redis.duplicate(), prefix, concurrency: 1 },
  );
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (seen.length === 34) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
  });
  await worker.close();
  const bPositions = ["job_b1", "job_b2", "job_b3"].map((id) => seen.indexOf(id));
  expect(
    bPositions.every((p) => p >= 0 && p < 8),
    seen.join(" "),
  ).toBe(true);
  expect(seen.indexOf("job_late"), seen.join(" ")).toBeLessThan(12);
  expect(seen.slice(0, 2).sort()).toEqual(["job_a1", "job_b1"]);
});
