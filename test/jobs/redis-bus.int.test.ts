/** The Redis event streams and notifications, on the real Redis with a unique prefix. */
// suite: parallel — the shared Redis, under a prefix of its own
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RedisBus } from "../../src/jobs/redis-bus.js";
import { pollUntil } from "../support/wait-for-job.js";

const prefix = `tst-bus-${randomBytes(4).toString("hex")}`;
let redis: Redis;
let sub: Redis;
let bus: RedisBus;

beforeAll(async () => {
  redis = new Redis("redis://127.0.0.1:6379");
  sub = redis.duplicate();
  bus = new RedisBus(redis, sub, { prefix, maxLen: 100, ttlS: 60 });
  await bus.start();
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  sub.disconnect();
  redis.disconnect();
});

it("appends in order, reads after an id, and expires the stream", async () => {
  await bus.append("job_a", { type: "status", data: { status: "queued" } });
  await bus.append("job_a", { type: "chunk", data: { n: 1 } }, { type: "result", data: { ok: true } });
  const all = await bus.read("job_a");
  expect(all.map((e) => e.type)).toEqual(["status", "chunk", "result"]);
  expect((await bus.read("job_a", all[0]!.id)).map((e) => e.type)).toEqual(["chunk", "result"]);
  expect(await bus.read("job_missing")).toEqual([]);
  const ttl = await redis.ttl(`${prefix}:job-events:job_a`);
  expect(ttl).toBeGreaterThan(0);
});

it("notifies watchers of a job and delivers cancels", async () => {
  let seen = 0;
  const stop = await bus.watch("job_b", () => seen++);
  const cancels: string[] = [];
  bus.onCancel((id) => cancels.push(id));
  await bus.append("job_b", { type: "status", data: {} });
  await bus.requestCancel("job_b");
  await pollUntil(
    () => seen > 0 && cancels.length > 0,
    (ok) => ok,
    { timeoutMs: 5000, intervalMs: 10, what: "the status and the cancel" },
  );
  expect(seen).toBe(1);
  expect(cancels).toContain("job_b");
  stop();
});

it("a cancel reaches this process's own listeners at once, before any round trip through Redis", async () => {
  // A worker in the process that answers the cancel must have heard it by the time the client
  // hears the answer: otherwise a run that starts right after could start its command (the
  // pub/sub message still on its way).
  const heard: string[] = [];
  const stop = bus.onCancel((id) => heard.push(id));
  const sent = bus.requestCancel("job_now");
  expect(heard).toEqual(["job_now"]);
  await sent;
  stop();
});

it("another process hears a cancel once, through Redis", async () => {
  const otherSub = redis.duplicate();
  const other = new RedisBus(redis, otherSub, { prefix, maxLen: 100, ttlS: 60 });
  await other.start();
  const heard: string[] = [];
  other.onCancel((id) => heard.push(id));
  await bus.requestCancel("job_far");
  await pollUntil(
    () => heard.length,
    (n) => n > 0,
    { timeoutMs: 5000, intervalMs: 10, what: "the cancel" },
  );
  // A later message on the same connection: once it is in, the cancel came only once.
  await bus.requestCancel("job_after");
  await pollUntil(
    () => heard.length,
    (n) => n > 1,
    { timeoutMs: 5000, intervalMs: 10, what: "the next cancel" },
  );
  expect(heard).toEqual(["job_far", "job_after"]);
  await other.stop();
  otherSub.disconnect();
});

it("notices go per job: another process hears only the jobs it watches, and unsubscribes after", async () => {
  const otherSub = redis.duplicate();
  const other = new RedisBus(redis, otherSub, { prefix, maxLen: 100, ttlS: 60 });
  await other.start();
  const channel = `${prefix}:bus:job:job_c`;
  let seen = 0;
  const stop = await other.watch("job_c", () => seen++);
  expect(await redis.pubsub("NUMSUB", channel)).toEqual([channel, 1]);
  await bus.append("job_d", { type: "status", data: {} });
  await bus.append("job_c", { type: "status", data: {} });
  await pollUntil(
    () => seen,
    (n) => n > 0,
    { timeoutMs: 5000, intervalMs: 10, what: "the notice of job_c" },
  );
  expect(seen).toBe(1);
  stop();
  await pollUntil(
    async () => (await redis.pubsub("NUMSUB", channel))[1],
    (n) => n === 0,
    { timeoutMs: 5000, intervalMs: 10, what: "the unsubscribe" },
  );
  otherSub.disconnect();
});

it("the tenant channel is subscribed only while a tenant is watched here: no process hears every call's status notice, its own included", async () => {
  const own = `tst-bus-${randomBytes(4).toString("hex")}`;
  const channel = `${own}:bus:tenant-jobs`;
  const subs = [redis.duplicate(), redis.duplicate()];
  const [a, b] = subs.map((s) => new RedisBus(redis, s, { prefix: own, maxLen: 100, ttlS: 60 }));
  await a!.start();
  await b!.start();
  let heardByA = 0;
  subs[0]!.on("message", (ch: string) => {
    if (ch === channel) heardByA++;
  });
  const numsub = async () => (await redis.pubsub("NUMSUB", channel))[1];
  try {
    // Nobody watches: a call's notices reach no process (on main both were subscribed, and `a`
    // read the echo of its own notice on every status of every call).
    expect(await numsub()).toBe(0);
    await a!.publishStatus("job_1", "ten_1", "queued", []);
    const seen: unknown[] = [];
    const stop = await b!.watchTenant("ten_1", (n) => seen.push(n));
    expect(await numsub()).toBe(1);
    await a!.publishStatus("job_2", "ten_1", "running", []);
    await pollUntil(
      () => seen.length,
      (n) => n > 0,
      { timeoutMs: 5000, intervalMs: 10, what: "the tenant notice" },
    );
    expect(seen).toEqual([{ jobId: "job_2", status: "running" }]);
    stop();
    stop();
    await pollUntil(numsub, (n) => n === 0, { timeoutMs: 5000, intervalMs: 10, what: "the unsubscribe" });
    // Watched again: subscribed again, and heard.
    const again = await b!.watchTenant("ten_1", (n) => seen.push(n));
    await a!.publishStatus("job_3", "ten_1", "succeeded", []);
    await pollUntil(
      () => seen.length,
      (n) => n > 1,
      { timeoutMs: 5000, intervalMs: 10, what: "the notice after watching again" },
    );
    again();
    expect(heardByA).toBe(0);
  } finally {
    await a!.stop();
    await b!.stop();
    for (const s of subs) s.disconnect();
    const keys = await redis.keys(`${own}:*`);
    if (keys.length) await redis.del(...keys);
  }
});

it("a held publish goes out with the next write or read of events, at sendHeld, or by itself; in call order", async () => {
  // This process's tenant watchers hear a status as its write goes out (synchronously): the order
  // they hear is the order of the writes on the connection.
  const heard: string[] = [];
  const stop = await bus.watchTenant("ten_held", (n) => heard.push(`${n.jobId} ${n.status}`));
  const status = (s: string) => ({ type: "status" as const, data: { status: s } });
  try {
    // Held: not written yet. The next write sends it first.
    const first = bus.publishStatus("job_h1", "ten_held", "succeeded", [status("succeeded")], { held: true });
    expect(heard).toEqual([]);
    await bus.publishStatus("job_h2", "ten_held", "queued", [status("queued")]);
    await first;
    expect(heard).toEqual(["job_h1 succeeded", "job_h2 queued"]);
    // A stream read here, issued after it, sees it.
    const second = bus.publishStatus("job_h3", "ten_held", "succeeded", [status("succeeded")], {
      held: true,
    });
    expect((await bus.read("job_h3")).map((e) => e.data)).toEqual([{ status: "succeeded" }]);
    await second;
    // sendHeld writes what is held, at once.
    const third = bus.publishStatus("job_h4", "ten_held", "succeeded", [], { held: true });
    expect(heard).not.toContain("job_h4 succeeded");
    bus.sendHeld();
    expect(heard.at(-1)).toBe("job_h4 succeeded");
    await third;
    // Nothing else sends it: it goes by itself, shortly.
    await bus.publishStatus("job_h5", "ten_held", "failed", [status("failed")], { held: true });
    expect(heard.at(-1)).toBe("job_h5 failed");
    expect((await redis.xrange(`${prefix}:job-events:job_h5`, "-", "+")).length).toBe(1);
  } finally {
    stop();
  }
});
