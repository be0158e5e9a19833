/**
 * A warm Read submitted with `wait` runs before it is stored and is stored once, final
 * (src/service/calls/fast-read.ts): what a client sees after is what the usual path leaves (the
 * row, its events, its audit entry, the read cache a later Edit needs), and a Read that anything
 * could have ordered differently is thrown away and run in order.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CALL_PATH_CHANNEL, CALL_POINTS } from "../../src/call-path.js";
import type { JobStore } from "../../src/db/store.js";
import { countActiveCounts } from "../support/active-counts.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

let h: Harness;
let t: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;
/** Every call of the store's insert paths since the last `seen()`, by method. */
const log: string[] = [];
let store: JobStore;

beforeAll(async () => {
  // Held events go by themselves after 1 s (not 25 ms): the order test below must not depend on the
  // service's thread never stalling 25 ms between its answer and this client's read of it.
  h = await startHarness({ mode: "serve", env: { EVENTS_HOLD_MS: "1000" } });
  store = h.service.deps.store;
  for (const m of ["insertFinished", "insertClaimed", "insertJob"] as const) {
    const real = (store[m] as (...a: unknown[]) => Promise<unknown>).bind(store);
    (store as unknown as Record<string, unknown>)[m] = async (...a: unknown[]) => {
      const out = await real(...a);
      log.push(`${m}:${out === undefined ? "none" : "row"}`);
      return out;
    };
  }
  t = await seedTenant(h.call, "fast");
  const rules = { allow: ["Bash", "Read", "Edit"], deny: [], ask: [] };
  await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
  sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  // Places the session here and starts its sandbox.
  expect((await bash("echo one > /workspace/f.txt", true)).body.job.status).toBe("succeeded");
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

const calls = () => `/v1/sessions/${sid}/calls`;
const bash = (command: string, wait = false) =>
  h.call("POST", `${calls()}${wait ? "?wait=60" : ""}`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command } },
  });
const read = (query = "?wait=60", extra: Record<string, unknown> = {}) =>
  h.call("POST", `${calls()}${query}`, {
    key: t.agentKey,
    body: { tool: "Read", input: { file_path: "/workspace/f.txt" }, ...extra },
  });
const text = (job: { result: { content: { text: string }[] } }) => job.result.content[0]!.text;
const seen = () => log.splice(0);

it("a warm Read with wait is stored once, final, as the usual run leaves it", async () => {
  seen();
  const res = await read();
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(seen()).toEqual(["insertFinished:row"]);
  const job = res.body.job;
  expect(job.status).toBe("succeeded");
  expect(text(job)).toContain("one");
  const got = (await h.call("GET", `/v1/jobs/${job.id}`, { key: t.agentKey })).body.job;
  expect(got).toEqual(job);
  expect(got.attempts).toHaveLength(1);
  expect(got.attempts[0]).toMatchObject({ n: 1, outcome: "succeeded" });
  expect(got.attempts[0].endedAt).toBeTypeOf("string");
  expect(got.startedAt).toBeTypeOf("string");

  // Its events replay as a run's: queued, running, succeeded, then the result.
  const events = await pollUntil(
    async () => {
      const r = await fetch(`${h.url}/v1/jobs/${job.id}/events`, {
        headers: { authorization: `Bearer ${t.agentKey}` },
      });
      return r.text();
    },
    (body) => body.includes("event: result") && body.includes('"status":"running"'),
    { what: "the fast read's events" },
  );
  const statuses = [...events.matchAll(/event: status\ndata: (.*)/g)].map((m) => JSON.parse(m[1]!).status);
  expect(statuses).toEqual(["queued", "running", "succeeded"]);

  // Its decision is audited, and the read cache it filled lets an Edit go without another Read.
  const audit = await h.call("GET", `/v1/tenants/${t.tenantId}/audit`, { key: t.adminKey });
  expect(JSON.stringify(audit.body)).toContain(job.id);
  const edit = await h.call("POST", `${calls()}?wait=60`, {
    key: t.agentKey,
    body: { tool: "Edit", input: { file_path: "/workspace/f.txt", old_string: "one", new_string: "two" } },
  });
  expect(edit.body.job.status, JSON.stringify(edit.body)).toBe("succeeded");
}, 60_000);

it("sends its read before the run is set up, and counts the tenant's active calls once", async () => {
  const deps = h.service.deps;
  const order: string[] = [];
  // The tenant's settings are cached for CONFIG_TTL_MS: a read right before keeps this one's
  // acquire on the cache (a loaded machine can leave more than that since the previous test's),
  // as an agent's back-to-back calls are. On a miss the read waits for the settings' query.
  expect((await read()).body.job.status).toBe("succeeded");
  // The session's sandbox (the one every run of it uses) and the run's toolkit set-up, observed.
  const sandbox = await deps.sandboxes.acquire({ sessionId: sid, tenantId: t.tenantId });
  const readFile = sandbox.readFile.bind(sandbox);
  sandbox.readFile = (...a) => {
    order.push("read");
    return readFile(...a);
  };
  const clients = deps.mcp!.clients;
  const toolSets = clients.toolSets.bind(clients);
  clients.toolSets = (...a) => {
    order.push("toolkit");
    return toolSets(...a);
  };
  // Counted in the store's transaction only (SQLite: the prepared count; Postgres counts in SQL).
  const counts = countActiveCounts(deps.db);
  try {
    seen();
    const res = await read();
    expect(res.body.job.status, JSON.stringify(res.body)).toBe("succeeded");
    expect(seen()).toEqual(["insertFinished:row"]);
    // The plan's toolkit, then the read, then the run's toolkit (set up while the executor reads).
    expect(order.slice(-2)).toEqual(["read", "toolkit"]);
    if (counts.counted() !== undefined) expect(counts.counted()).toBe(1);
  } finally {
    delete (sandbox as Partial<typeof sandbox>).readFile;
    delete (clients as Partial<typeof clients>).toolSets;
    counts.restore();
  }
}, 60_000);

it("passes the call path's points in order (what `npm run bench -- hops` times)", async () => {
  const passed: string[] = [];
  const onPoint = (point: unknown) => void passed.push(String(point));
  subscribe(CALL_PATH_CHANNEL, onPoint);
  try {
    const res = await read();
    expect(res.body.job.status, JSON.stringify(res.body)).toBe("succeeded");
  } finally {
    unsubscribe(CALL_PATH_CHANNEL, onPoint);
  }
  // Each at its first pass: the bench times a hop from one point's first pass to the next's.
  expect([...new Set(passed)]).toEqual(CALL_POINTS);
}, 60_000);

it("writes its events after its client has the answer: held, then sent with the others held", async () => {
  // The events' script call (~0.1 ms of the service thread) ran before a client in the service's
  // thread read its answer; it is held now (RedisBus#publishStatus). This process's tenant
  // watchers hear a status as its write goes out.
  const order: string[] = [];
  const onPoint = (point: unknown) => void order.push(String(point));
  const stop = await h.service.deps.events.watchTenant(t.tenantId, (n) => order.push(`events ${n.jobId}`));
  subscribe(CALL_PATH_CHANNEL, onPoint);
  let first = "";
  try {
    first = (await read()).body.job.id;
    order.push("answered");
    // Nothing else writes events here: they go by themselves, shortly.
    await pollUntil(
      () => order.includes(`events ${first}`),
      (sent) => sent,
      { timeoutMs: 5_000, intervalMs: 5, what: "the held events" },
    );
  } finally {
    unsubscribe(CALL_PATH_CHANNEL, onPoint);
    stop();
  }
  // (Only a stall of EVENTS_HOLD_MS (1 s here) between the service's answer and this client's read
  // of it would let the bus's tick send them first.)
  expect(order.indexOf(`events ${first}`), order.join(", ")).toBeGreaterThan(order.indexOf("answered"));
}, 60_000);

it("a follower that comes right after the answer still gets every event, in order", async () => {
  const job = (await read()).body.job;
  // Its stream read, in this process, sends the held events before it reads.
  const r = await fetch(`${h.url}/v1/jobs/${job.id}/events`, {
    headers: { authorization: `Bearer ${t.agentKey}` },
  });
  const body = await r.text();
  const events = [...body.matchAll(/event: (\w+)\ndata: (.*)\nid: (.*)/g)].map((m) => [m[3], m[1], m[2]]);
  const kinds = events.map(([, kind, data]) => (kind === "status" ? JSON.parse(data!).status : kind));
  expect(kinds, body).toEqual(["queued", "running", "succeeded", "result"]);
  // From the stream, not rebuilt from the row (ids `final-status` and `final`).
  expect(
    events.every(([id]) => /^\d+-\d+$/.test(id!)),
    body,
  ).toBe(true);
}, 60_000);

it("never without wait, nor with an idempotency key", async () => {
  seen();
  const noWait = await read("");
  await waitForJob(h.call, t.agentKey, noWait.body.job.id);
  const keyed = await read("?wait=60", { idempotencyKey: "k-fast-1" });
  expect(keyed.body.job.status).toBe("succeeded");
  expect(seen()).toEqual(["insertClaimed:row", "insertClaimed:row"]);
}, 60_000);

it("a Read behind an unfinished call of its session does not run ahead: it reads after it", async () => {
  seen();
  const slow = await bash("sleep 0.5; echo three > /workspace/f.txt");
  expect(slow.status).toBe(202);
  const res = await read();
  expect(text(res.body.job)).toContain("three");
  expect(seen().filter((s) => s.startsWith("insertFinished"))).toEqual([]);
}, 60_000);

it("a call of the session stored while the read runs throws the read away: it runs again after it", async () => {
  const listed = async () =>
    (await h.call("GET", `/v1/jobs?sessionId=${sid}&limit=100`, { key: t.agentKey })).body.items.map(
      (j: { id: string }) => j.id,
    );
  const before = await listed();
  const real = store.insertFinished.bind(store);
  let other = "";
  // Another request's Bash is stored (and run) between the read and the store of its result.
  store.insertFinished = async (...a) => {
    store.insertFinished = real;
    other = (await bash("echo four > /workspace/f.txt")).body.job.id;
    await waitForJob(h.call, t.agentKey, other);
    return real(...a);
  };
  seen();
  const res = await read();
  expect(res.body.job.status).toBe("succeeded");
  expect(text(res.body.job)).toContain("four");
  expect(seen().sort()).toEqual(["insertClaimed:row", "insertClaimed:row", "insertFinished:none"]);
  // The thrown-away run stored nothing: two jobs more, the Bash and the Read run in order.
  expect((await listed()).sort()).toEqual([...before, other, res.body.job.id].sort());
}, 60_000);

it("acknowledges its job to the executor only once the read sent ahead is answered, even one its run did not take", async () => {
  // A tool whose firstRead names another read than its run's first: the read sent ahead is taken
  // by nothing. The executor keeps a keyed read's reply until its job is acknowledged, and an
  // acknowledgement lets go only of what is over (call-memo.mjs#ack): one that came first would
  // leave the read ahead's reply kept (up to 8 MiB) until it ages out, 30 minutes later.
  const { ReadTool } = await import("../../src/toolkit/tools/read.js");
  const { MAX_READ_BYTES } = await import("../../src/toolkit/tools/file-state.js");
  expect((await bash("echo gee > /workspace/g.txt", true)).body.job.status).toBe("succeeded");
  const proto = ReadTool.prototype as { firstRead: InstanceType<typeof ReadTool>["firstRead"] };
  const firstRead = proto.firstRead;
  proto.firstRead = () => ({ path: "/workspace/g.txt", maxBytes: MAX_READ_BYTES });
  const deps = h.service.deps;
  const sandbox = await deps.sandboxes.acquire({ sessionId: sid, tenantId: t.tenantId });
  const readFile = sandbox.readFile.bind(sandbox);
  let aheadAnswered = false;
  // The read ahead's answer reaches the service late (a slow read in the executor).
  sandbox.readFile = async (path, o) => {
    const got = await readFile(path, o);
    if (path !== "/workspace/g.txt") return got;
    await new Promise((r) => setTimeout(r, 300));
    aheadAnswered = true;
    return got;
  };
  const acknowledge = sandbox.acknowledge!.bind(sandbox);
  // Other jobs' acknowledgements (the set-up's Bash) may come meanwhile: this Read's are looked at.
  const acks: [string, boolean][] = [];
  sandbox.acknowledge = (jobId) => {
    acks.push([jobId, aheadAnswered]);
    acknowledge(jobId);
  };
  try {
    seen();
    const res = await read();
    expect(res.body.job.status, JSON.stringify(res.body)).toBe("succeeded");
    expect(seen()).toEqual(["insertFinished:row"]);
    // Its run read its own file (the read ahead is not its first).
    expect(text(res.body.job)).not.toContain("gee");
    const ours = () => acks.filter(([id]) => id === res.body.job.id).map(([, answered]) => answered);
    await pollUntil(ours, (a) => a.length > 0, { timeoutMs: 5_000, intervalMs: 10, what: "the ack" });
    expect(ours()).toEqual([true]);
  } finally {
    proto.firstRead = firstRead;
    delete (sandbox as Partial<typeof sandbox>).readFile;
    delete (sandbox as Partial<typeof sandbox>).acknowledge;
  }
}, 60_000);
