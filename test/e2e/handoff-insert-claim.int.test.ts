/**
 * The insert that claims its own row (serve mode's hand-off, JobStore.insertClaimed), seen from
 * outside: a job's SSE stream still says `queued`, `running`, then the result, once each and in
 * order, also when the run fails before its tool (the toolkit could not be built); a cancel that
 * lands between the insert and the run's start keeps the command from ever starting; and every
 * slot a submit reserved is given back (no lease key, no running entry left), whatever the
 * submit's end, so the process keeps handing calls off; and a waiter is answered from the stored
 * row, without waiting for the run's events, and a next call sent at once (an Edit after its Read)
 * finds what the answered run stored with its end (its read-cache entry).
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import type { CallHandoff, HandoffSlot } from "../../src/service/ports.js";
import { countActiveCounts } from "../support/active-counts.js";
import { ADMIN_KEY, type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { pollUntil, waitForJob, waitForJobs } from "../support/wait-for-job.js";

let h: Harness;
let enqueued: string[];
beforeAll(async () => {
  // Two slots: a slot that is never given back shows as a hand-off that no longer happens.
  h = await startHarness({ mode: "serve", env: { WORKER_CONCURRENCY: "2" } });
  enqueued = [];
  const queue = h.service.deps.queue;
  const enqueue = queue.enqueue.bind(queue);
  queue.enqueue = (jobId, opts) => {
    enqueued.push(jobId);
    return enqueue(jobId, opts);
  };
});
afterAll(async () => {
  await h?.stop();
});

const bash = (command: string) => ({ tool: "Bash", input: { command } });

/** A session whose container is up and which is pinned to this process (its first call placed it). */
async function pinnedSession(name: string) {
  const t = await seedBashTenant(h.call, name);
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const calls = `/v1/sessions/${sid}/calls`;
  const first = await h.call("POST", `${calls}?wait=60`, { key: t.agentKey, body: bash("true") });
  expect(first.body.job.status).toBe("succeeded");
  return { t, sid, calls };
}

/** The whole SSE stream of a job (the server ends it after `result`): event names and data. */
async function streamOf(
  key: string,
  jid: string,
  lastEventId?: string,
): Promise<{ id?: string; event: string; data: unknown }[]> {
  const res = await fetch(`${h.url}/v1/jobs/${jid}/events`, {
    headers: { authorization: `Bearer ${key}`, ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
    signal: AbortSignal.timeout(60_000),
  });
  expect(res.status).toBe(200);
  const out: { id?: string; event: string; data: unknown }[] = [];
  for (const block of (await res.text()).split("\n\n")) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    const id = /^id: (.*)$/m.exec(block)?.[1];
    if (event) out.push({ ...(id ? { id } : {}), event, data: data === undefined ? null : JSON.parse(data) });
  }
  return out;
}

const statuses = (events: { event: string; data: unknown }[]) =>
  events.filter((e) => e.event !== "chunk").map((e) => `${e.event}:${(e.data as { status: string }).status}`);

/**
 * Holds the last write of runs that succeed (their status, chunks and result), each one `hold`
 * picks, until `release()` or `fallbackMs`; `released` says whether that came yet.
 */
function holdRunEnds(fallbackMs: number, hold: (jobId: string) => boolean = () => true) {
  const bus = h.service.deps.events;
  const publishStatus = bus.publishStatus.bind(bus);
  let open: () => void = () => {};
  const gate = new Promise<void>((r) => (open = r));
  const held = {
    released: false,
    release() {
      clearTimeout(fallback);
      bus.publishStatus = publishStatus;
      held.released = true;
      open();
    },
  };
  const fallback = setTimeout(() => held.release(), fallbackMs);
  bus.publishStatus = async (jobId, tenantId, status, events) => {
    if (status === "succeeded" && hold(jobId)) await gate;
    return publishStatus(jobId, tenantId, status, events);
  };
  return held;
}

it("a handed-off call's stream: queued, running, chunks, then its end, once each and in order", async () => {
  const { t, sid, calls } = await pinnedSession("sse");
  const sub = await h.call("POST", calls, { key: t.agentKey, body: bash("echo a; sleep 0.3; echo b") });
  expect(sub.body.job.status).toBe("running");
  const jid = sub.body.job.id as string;
  expect(enqueued).not.toContain(jid);
  const events = await streamOf(t.agentKey, jid);
  expect(statuses(events)).toEqual([
    "status:queued",
    "status:running",
    "status:succeeded",
    "result:succeeded",
  ]);
  // Chunks come between `running` and the end.
  const kinds = events.map((e) => e.event);
  expect(kinds.lastIndexOf("chunk")).toBeLessThan(kinds.length - 2);
  expect(kinds.indexOf("chunk")).toBeGreaterThan(1);
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 60_000);

it("a handed-off call whose toolkit cannot be built still streams queued and running before failed", async () => {
  const { t, sid, calls } = await pinnedSession("nokit");
  // The worker's side only (the submit lists the same tool sets): as if the tenant's MCP
  // configuration became unusable between the submit and the run.
  const clients = h.service.deps.mcp!.clients;
  const toolSets = clients.toolSets.bind(clients);
  clients.toolSets = (tenantId, opts) => {
    if (tenantId === t.tenantId && new Error().stack?.includes("executeJob"))
      throw new ValidationError("the MCP configuration is unusable", []);
    return toolSets(tenantId, opts);
  };
  try {
    const sub = await h.call("POST", `${calls}?wait=30`, { key: t.agentKey, body: bash("echo never") });
    expect(sub.body.job.status, JSON.stringify(sub.body)).toBe("failed");
    expect(enqueued).not.toContain(sub.body.job.id);
    const events = await streamOf(t.agentKey, sub.body.job.id);
    expect(statuses(events)).toEqual(["status:queued", "status:running", "status:failed", "result:failed"]);
  } finally {
    clients.toolSets = toolSets;
  }
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 60_000);

it("a cancel between the insert that claimed the call and its run: the command never starts", async () => {
  const { t, sid, calls } = await pinnedSession("cancelgap");
  const real = h.service.deps.handoff as CallHandoff;
  let start: (() => void) | undefined;
  // The run starts only once the test says so: the row is `running` (attempt 1) meanwhile.
  h.service.deps.handoff = {
    reserve: (jobId, sessionId) => {
      const slot = real.reserve(jobId, sessionId);
      return (
        slot && {
          claim: slot.claim,
          run: (claim) => {
            start = () => slot.run(claim);
          },
          release: () => slot.release(),
        }
      );
    },
    ended: (jobId) => real.ended(jobId),
  };
  let jid: string;
  try {
    const sub = await h.call("POST", calls, { key: t.agentKey, body: bash("echo ran > /workspace/ran") });
    jid = sub.body.job.id;
    expect(sub.body.job.status).toBe("running");
  } finally {
    h.service.deps.handoff = real;
  }
  expect(start).toBeDefined();
  expect((await h.call("POST", `/v1/jobs/${jid}/cancel`, { key: t.agentKey })).status).toBe(200);
  start!();
  const job = await waitForJob(h.call, t.agentKey, jid, { timeoutMs: 30_000 });
  expect(job.status, JSON.stringify(job)).toBe("cancelled");
  expect(job.attempts).toHaveLength(1);
  const ls = await h.call("POST", `${calls}?wait=30`, {
    key: t.agentKey,
    body: bash("test -e /workspace/ran && echo RAN || echo absent"),
  });
  expect(ls.body.job.result.content[0].text.trim()).toBe("absent");
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 60_000);

it("every reserved slot is given back, whatever the submit's end; no lease or running entry is left", async () => {
  const { t, sid, calls } = await pinnedSession("slots");
  const real = h.service.deps.handoff as CallHandoff;
  const slots = new Map<string, string[]>();
  h.service.deps.handoff = {
    reserve: (jobId, sessionId) => {
      const slot = real.reserve(jobId, sessionId);
      if (!slot) return undefined;
      const ends: string[] = [];
      slots.set(jobId, ends);
      const tracked: HandoffSlot = {
        claim: slot.claim,
        run: (claim) => {
          ends.push("run");
          slot.run(claim);
        },
        release: () => {
          ends.push("release");
          slot.release();
        },
      };
      return tracked;
    },
    ended: (jobId) => real.ended(jobId),
  };
  const store = h.service.deps.store;
  const insertClaimed = store.insertClaimed.bind(store);
  try {
    // A store that fails the insert (the database refused it): 5xx, and the slot is given back.
    store.insertClaimed = async () => {
      throw new Error("disk I/O error");
    };
    const broken = await h.call("POST", calls, { key: t.agentKey, body: bash("echo x") });
    expect(broken.status).toBeGreaterThanOrEqual(500);
    store.insertClaimed = insertClaimed;
    // Racing submits with one idempotency key (one is `taken`), and calls that must wait.
    const keyed = await Promise.all(
      Array.from({ length: 4 }, () =>
        h.call("POST", calls, { key: t.agentKey, body: { ...bash("sleep 0.3"), idempotencyKey: "k" } }),
      ),
    );
    const others = await Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        h.call("POST", calls, { key: t.agentKey, body: bash(`echo ${i}`) }),
      ),
    );
    const ids = [...new Set([...keyed, ...others].map((s) => s.body.job.id as string))];
    expect(ids).toHaveLength(4);
    await waitForJobs(h.call, t.agentKey, ids, undefined, { timeoutMs: 60_000 });
  } finally {
    store.insertClaimed = insertClaimed;
    h.service.deps.handoff = real;
  }
  expect(slots.size).toBeGreaterThan(2);
  for (const [jobId, ends] of slots) expect(ends.length, `${jobId}: ${ends.join(",")}`).toBe(1);
  expect([...slots.values()].flat()).toContain("release");
  // Nothing is left behind: no lease key, no entry in the worker's running map (both slots free).
  const redis = new Redis(h.config.REDIS_URL);
  try {
    await pollUntil(
      async () => ({ leases: await redis.keys(`${h.config.QUEUE_PREFIX}*handoff:*`), free: freeSlots(real) }),
      (x) => x.leases.length === 0 && x.free === 2,
      { timeoutMs: 10_000, what: "no lease key and both slots free" },
    );
  } finally {
    redis.disconnect();
  }
  // And the process still hands calls off.
  const next = await h.call("POST", `${calls}?wait=30`, { key: t.agentKey, body: bash("true") });
  expect(next.body.job.status).toBe("succeeded");
  expect(enqueued).not.toContain(next.body.job.id);
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 120_000);

it("a handed-off call counts the tenant's active calls once, in its insert; at the bound that insert refuses it and gives its slot back", async () => {
  const { t, sid, calls } = await pinnedSession("count-once");
  const deps = h.service.deps;
  // Counted in the store's transaction only (SQLite: the prepared count; Postgres counts in SQL).
  const counts = countActiveCounts(deps.db);
  try {
    const res = await h.call("POST", `${calls}?wait=30`, { key: t.agentKey, body: bash("echo once") });
    expect(res.body.job.status, JSON.stringify(res.body)).toBe("succeeded");
    expect(enqueued).not.toContain(res.body.job.id);
    if (counts.counted() !== undefined) expect(counts.counted()).toBe(1);
  } finally {
    counts.restore();
  }
  // One call queued or running at most: a second one is refused by the insert that would claim
  // it (the same 429 as the early count gave), nothing of it is stored, and its slot is free again.
  const settings = await h.call("PUT", `/v1/tenants/${t.tenantId}/settings`, {
    key: ADMIN_KEY,
    body: { quotas: { maxActiveCalls: 1 } },
  });
  expect(settings.status, JSON.stringify(settings.body)).toBe(200);
  const slow = await h.call("POST", calls, { key: t.agentKey, body: bash("sleep 0.5") });
  expect(slow.body.job.status, JSON.stringify(slow.body)).toBe("running");
  const over = await h.call("POST", calls, { key: t.agentKey, body: bash("echo over") });
  expect(over.status, JSON.stringify(over.body)).toBe(429);
  expect(over.body.error.message).toBe("the tenant already has 1 calls queued or running");
  expect(freeSlots(h.service.deps.handoff as CallHandoff)).toBe(1);
  await waitForJob(h.call, t.agentKey, slow.body.job.id);
  const jobs = await h.call("GET", `/v1/jobs?sessionId=${sid}&limit=100`, { key: t.agentKey });
  expect(jobs.body.items).toHaveLength(3);
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 60_000);

/** How many slots the hand-off gives now (each taken one is given back at once). */
function freeSlots(handoff: CallHandoff): number {
  const taken: HandoffSlot[] = [];
  for (let i = 0; i < 8; i++) {
    const slot = handoff.reserve(`job_probe_${i}`, "ses_probe");
    if (!slot) break;
    taken.push(slot);
  }
  for (const slot of taken) slot.release();
  return taken.length;
}

it("safe calls submitted behind a running unsafe one wait for it; with nothing unsafe ahead, its insert claims it", async () => {
  const { t, sid, calls } = await pinnedSession("safe");
  const rules = { allow: ["Bash", "Read"], deny: [], ask: [] };
  await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
  const write = await h.call("POST", calls, {
    key: t.agentKey,
    body: bash("sleep 0.3; echo written > /workspace/f"),
  });
  expect(write.body.job.status).toBe("running");
  const read = (p: string) => ({ tool: "Read", input: { file_path: p } });
  const reads = await Promise.all([
    h.call("POST", calls, { key: t.agentKey, body: read("/workspace/f") }),
    h.call("POST", calls, { key: t.agentKey, body: read("/workspace/f") }),
  ]);
  for (const r of reads) expect(r.body.job?.status, JSON.stringify(r.body)).toBe("queued");
  const done = await waitForJobs(h.call, t.agentKey, [write.body.job.id, ...reads.map((r) => r.body.job.id)]);
  expect(done.map((j) => j.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
  for (const j of done.slice(1)) expect(JSON.stringify(j.result.content)).toContain("written");
  // Nothing unsafe ahead: a safe call is claimed by its own insert.
  const alone = await h.call("POST", calls, { key: t.agentKey, body: read("/workspace/f") });
  expect(alone.body.job.status).toBe("running");
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 60_000);

it("a waiter is answered once the final row is stored, while the run's events are still on their way", async () => {
  const { t, calls } = await pinnedSession("early");
  // The run's last write (its status, chunks and result) is held until the answer came, or for 5 s.
  const held = holdRunEnds(5000);
  let jid: string;
  try {
    const sub = await h.call("POST", `${calls}?wait=30`, { key: t.agentKey, body: bash("echo early") });
    // Answered while the events were held (it waited for them before: released by then).
    expect(held.released).toBe(false);
    expect(sub.body.job.status).toBe("succeeded");
    expect(sub.body.job.result.content[0].text).toContain("early");
    jid = sub.body.job.id;
  } finally {
    held.release();
  }
  // The events still go out, once each and in order.
  const stream = await streamOf(t.agentKey, jid);
  expect(stream.some((e) => e.event === "chunk")).toBe(true);
  expect(statuses(stream)).toEqual([
    "status:queued",
    "status:running",
    "status:succeeded",
    "result:succeeded",
  ]);
}, 60_000);

it("a waiter is answered before the run's end events are even written: their write waits for the next turn", async () => {
  const { t, calls } = await pinnedSession("answer-first");
  const deps = h.service.deps;
  const order: string[] = [];
  // The waiter's own promise (the hand-off's end) and the run's last event write, observed.
  const handoff = deps.handoff as CallHandoff;
  const ended = handoff.ended.bind(handoff);
  handoff.ended = (jobId) => {
    const end = ended(jobId);
    void end?.then(() => order.push("answered"));
    return end;
  };
  const bus = deps.events;
  const publishStatus = bus.publishStatus.bind(bus);
  bus.publishStatus = (jobId, tenantId, status, events) => {
    if (status === "succeeded") order.push("end events");
    return publishStatus(jobId, tenantId, status, events);
  };
  try {
    const sub = await h.call("POST", `${calls}?wait=30`, { key: t.agentKey, body: bash("echo first") });
    expect(sub.body.job.status, JSON.stringify(sub.body)).toBe("succeeded");
    await pollUntil(
      async () => order.length,
      (n) => n === 2,
      { timeoutMs: 10_000, what: "the answer and the end events" },
    );
    expect(order).toEqual(["answered", "end events"]);
  } finally {
    handoff.ended = ended;
    bus.publishStatus = publishStatus;
  }
}, 60_000);

it("a client that sends the next call the moment it is answered: an Edit right after its Read, while the Read's events are held", async () => {
  const { t, sid, calls } = await pinnedSession("readedit");
  const rules = { allow: ["Bash", "Read", "Edit", "Write"], deny: [], ask: [] };
  await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
  const wait = async (body: unknown) => {
    const r = await h.call("POST", `${calls}?wait=30`, { key: t.agentKey, body });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.job as { id: string; status: string; result: { content: { text: string }[] } };
  };
  expect((await wait(bash("printf 'one\\n' > /workspace/re.txt"))).status).toBe("succeeded");
  // The Read's last write (its end's events) is held until the calls after it were answered (or
  // 10 s). Its run holds one of the two hand-off slots meanwhile; the others run in the second.
  let heldJob: string | undefined;
  const held = holdRunEnds(10_000, (jobId) => {
    heldJob ??= jobId;
    return heldJob === jobId;
  });
  const ids: string[] = [];
  try {
    const read = await wait({ tool: "Read", input: { file_path: "/workspace/re.txt" } });
    expect(read.status).toBe("succeeded");
    expect(heldJob).toBe(read.id);
    // Answered with its run still sending: the Edit must find what the Read stored with its end.
    const edit = await wait({
      tool: "Edit",
      input: { file_path: "/workspace/re.txt", old_string: "one", new_string: "two" },
    });
    expect(edit.status, JSON.stringify(edit.result)).toBe("succeeded");
    // And the Edit's own entry: a Write right after it needs no Read in between.
    const write = await wait({
      tool: "Write",
      input: { file_path: "/workspace/re.txt", content: "three\n" },
    });
    expect(write.status, JSON.stringify(write.result)).toBe("succeeded");
    ids.push(read.id, edit.id, write.id);
    expect(held.released, "answered only once the held events went").toBe(false);
  } finally {
    held.release();
  }
  const cat = await wait(bash("cat /workspace/re.txt"));
  expect(cat.result.content[0]?.text).toContain("three");
  // Each held run's events still go out, once each and in order.
  for (const jid of ids) {
    expect(statuses(await streamOf(t.agentKey, jid))).toEqual([
      "status:queued",
      "status:running",
      "status:succeeded",
      "result:succeeded",
    ]);
  }
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 60_000);

it("a stream follower that comes after the early answer, while the run's end events are held, gets the terminal status and the stored result once", async () => {
  const { t, sid, calls } = await pinnedSession("follower");
  const held = holdRunEnds(10_000);
  try {
    const sub = await h.call("POST", `${calls}?wait=30`, { key: t.agentKey, body: bash("echo followed") });
    expect(sub.body.job.status, JSON.stringify(sub.body)).toBe("succeeded");
    const stream = await streamOf(t.agentKey, sub.body.job.id);
    // Closed by the stored row, not by the events still held.
    expect(held.released).toBe(false);
    const results = stream.filter((e) => e.event === "result");
    expect(results).toHaveLength(1);
    expect(results[0]?.data).toEqual({ status: "succeeded", result: sub.body.job.result });
    // The whole story still ends with the terminal status, then the result: the stored row
    // stands in for both end events.
    expect(statuses(stream).slice(-2)).toEqual(["status:succeeded", "result:succeeded"]);
    expect(stream.at(-2)?.id).toBe("final-status");
    // A client that resumes from that status gets the result alone.
    const resumed = await streamOf(t.agentKey, sub.body.job.id, "final-status");
    expect(statuses(resumed)).toEqual(["result:succeeded"]);
    expect(held.released).toBe(false);
  } finally {
    held.release();
  }
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 60_000);
