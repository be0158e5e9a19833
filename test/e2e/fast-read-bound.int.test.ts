/**
 * A fast read (src/service/calls/fast-read.ts) is an active call of its tenant while it runs, as
 * a claimed run is: a hostile tenant with many sessions must not run more reads at once than its
 * `maxActiveCalls` (and so hold more of the worker's slots than the usual path lets it) because
 * a read's row is only written once it is over.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { JobStore } from "../../src/db/store.js";
import { ADMIN_KEY, type Harness, seedTenant, startHarness } from "../support/harness.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

let h: Harness;
let t: Awaited<ReturnType<typeof seedTenant>>;
let store: JobStore;
const sids: string[] = [];

beforeAll(async () => {
  h = await startHarness({ mode: "serve" });
  store = h.service.deps.store;
  t = await seedTenant(h.call, "bound");
  const rules = { allow: ["Bash", "Read"], deny: [], ask: [] };
  await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
  for (let i = 0; i < 2; i++) {
    const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
    sids.push(sid);
    // Places the session here and starts its sandbox: its Reads may run ahead.
    const warm = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command: "echo one > /workspace/f.txt" } },
    });
    expect(warm.body.job.status).toBe("succeeded");
  }
  const quotas = { maxActiveCalls: 1, callsPerMinute: 1000 };
  await h.call("PUT", `/v1/tenants/${t.tenantId}/settings`, { key: ADMIN_KEY, body: { quotas } });
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

const read = (sid: string) =>
  h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
    key: t.agentKey,
    body: { tool: "Read", input: { file_path: "/workspace/f.txt" } },
  });

/**
 * Runs `during` while a Read of the first session has run ahead and is not yet stored (a wrapped
 * `insertFinished` holds it until `during` is over); the held Read's answer, and how many reads
 * reached their store meanwhile and after.
 */
async function whileAReadRunsAhead<T>(during: () => Promise<T>) {
  const real = store.insertFinished.bind(store);
  let ranAhead = 0;
  const counted: typeof real = (...a) => {
    ranAhead++;
    return real(...a);
  };
  let reached!: () => void;
  const inFlight = new Promise<void>((r) => (reached = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  store.insertFinished = async (...a) => {
    store.insertFinished = counted;
    reached();
    await Promise.race([released, new Promise((r) => setTimeout(r, 10_000))]);
    return counted(...a);
  };
  try {
    const first = read(sids[0]!);
    await inFlight;
    const got = await during();
    const ranAheadMeanwhile = ranAhead;
    release();
    const held = await first;
    expect(held.body.job.status, JSON.stringify(held.body)).toBe("succeeded");
    return { got, ranAheadMeanwhile, ranAhead: () => ranAhead };
  } finally {
    release();
    store.insertFinished = real;
  }
}

it("a second Read of the tenant while its first runs ahead is past maxActiveCalls: a 429", async () => {
  const { got: second, ranAheadMeanwhile } = await whileAReadRunsAhead(() => read(sids[1]!));
  expect(second.status, JSON.stringify(second.body)).toBe(429);
  expect(second.body.error.message).toBe("the tenant already has 1 calls queued or running");
  // The second did not even run ahead (a read past the bound is not run to be thrown away).
  expect(ranAheadMeanwhile).toBe(0);
  // Once the first is over, the tenant has its slot again, and a Read runs ahead as before.
  const again = await whileAReadRunsAhead(async () => undefined);
  expect(again.ranAhead()).toBe(1);
  expect((await read(sids[1]!)).body.job.status).toBe("succeeded");
}, 60_000);

it("a Read while the tenant's stored calls are at the bound: a 429, and its read never sent", async () => {
  // A command of the first session, running: the tenant's one active call, stored.
  const slow = await h.call("POST", `/v1/sessions/${sids[0]}/calls`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "sleep 30" } },
  });
  const jid = slow.body.job.id as string;
  await pollUntil(
    async () => (await h.call("GET", `/v1/jobs/${jid}`, { key: t.agentKey })).body.job.status,
    (s) => s === "running",
    { what: "the command running" },
  );
  // The second session's sandbox (the one its runs use) and the store's insert, observed.
  const deps = h.service.deps;
  const sandbox = await deps.sandboxes.acquire({ sessionId: sids[1]!, tenantId: t.tenantId });
  const readFile = sandbox.readFile.bind(sandbox);
  let reads = 0;
  sandbox.readFile = (...a) => {
    reads++;
    return readFile(...a);
  };
  const real = store.insertFinished.bind(store);
  let ranAhead = 0;
  store.insertFinished = (...a) => {
    ranAhead++;
    return real(...a);
  };
  try {
    const over = await read(sids[1]!);
    expect(over.status, JSON.stringify(over.body)).toBe(429);
    expect(over.body.error.message).toBe("the tenant already has 1 calls queued or running");
    // Refused before any work, as before the early count was skipped: no read in the sandbox.
    expect({ reads, ranAhead }).toEqual({ reads: 0, ranAhead: 0 });
  } finally {
    delete (sandbox as Partial<typeof sandbox>).readFile;
    store.insertFinished = real;
    await h.call("POST", `/v1/jobs/${jid}/cancel`, { key: t.agentKey });
    await waitForJob(h.call, t.agentKey, jid);
  }
  expect((await read(sids[1]!)).body.job.status).toBe("succeeded");
}, 60_000);

it("an approval that would queue a call while a Read runs ahead is past the bound: a 429, still pending", async () => {
  const rules = { allow: ["Read"], deny: [], ask: ["Bash"] };
  await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
  const asked = await h.call("POST", `/v1/sessions/${sids[1]}/calls`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "true" } },
  });
  expect(asked.body.job.status).toBe("awaiting_approval");
  const approve = () =>
    h.call("POST", `/v1/jobs/${asked.body.job.id}/approval`, { key: t.adminKey, body: { approve: true } });
  const { got: over } = await whileAReadRunsAhead(approve);
  expect(over.status, JSON.stringify(over.body)).toBe(429);
  const pending = await h.call("GET", `/v1/jobs/${asked.body.job.id}`, { key: t.agentKey });
  expect(pending.body.job.status).toBe("awaiting_approval");
  // Once the Read is over the same answer goes through.
  const ok = await approve();
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  await waitForJob(h.call, t.agentKey, asked.body.job.id);
}, 60_000);

it("a workspace download (a transfer job) while a Read runs ahead is past the bound: a 429", async () => {
  const download = () =>
    fetch(`${h.url}/v1/sessions/${sids[1]}/files?path=f.txt`, {
      headers: { authorization: `Bearer ${t.agentKey}` },
    });
  const { got: over } = await whileAReadRunsAhead(download);
  expect(over.status, await over.text()).toBe(429);
  const ok = await download();
  expect(ok.status).toBe(200);
  expect(await ok.text()).toBe("one\n");
}, 60_000);

it("at a bound of 2, a stored running call and a Read running ahead leave no room for a third", async () => {
  await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, {
    key: t.adminKey,
    body: { allow: ["Bash", "Read"], deny: [], ask: [] },
  });
  const quotas = { maxActiveCalls: 2, callsPerMinute: 1000 };
  await h.call("PUT", `/v1/tenants/${t.tenantId}/settings`, { key: ADMIN_KEY, body: { quotas } });
  const bash = (command: string) =>
    h.call("POST", `/v1/sessions/${sids[1]}/calls`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command } },
    });
  const slow = (await bash("sleep 30")).body.job.id as string;
  await pollUntil(
    async () => (await h.call("GET", `/v1/jobs/${slow}`, { key: t.agentKey })).body.job.status,
    (s) => s === "running",
    { what: "the command running" },
  );
  try {
    // The Read of session 0 runs ahead (one stored, itself held: room), and is held unstored while
    // a third call comes: a command (counted by its insert) and a Read (its session busy: the usual way).
    const { got } = await whileAReadRunsAhead(async () => [await bash("true"), await read(sids[1]!)]);
    expect(got.map((r) => r.status)).toEqual([429, 429]);
  } finally {
    await h.call("POST", `/v1/jobs/${slow}/cancel`, { key: t.agentKey });
    await waitForJob(h.call, t.agentKey, slow);
  }
}, 60_000);
