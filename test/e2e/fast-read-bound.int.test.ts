/**
 * A fast read (src/service/calls/fast-read.ts) is an active call of its tenant while it runs, as
 * a claimed run is: a hostile tenant with many sessions must not run more reads at once than its
 * `maxActiveCalls` (and so hold more of the worker's slots than the usual path lets it) because
 * a read's row is only written once it is over.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { JobStore } from "../../src/db/store.js";
import { ADMIN_KEY, type Harness, seedTenant, startHarness } from "../support/harness.js";

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

it("a second Read of the tenant while its first runs ahead is past maxActiveCalls: a 429", async () => {
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
  // The first Read has run and is not yet stored (still in flight) until the second is answered.
  store.insertFinished = async (...a) => {
    store.insertFinished = counted;
    reached();
    await Promise.race([released, new Promise((r) => setTimeout(r, 10_000))]);
    return counted(...a);
  };
  const first = read(sids[0]!);
  await inFlight;
  const second = await read(sids[1]!);
  release();
  const done = await first;
  expect(done.body.job.status, JSON.stringify(done.body)).toBe("succeeded");
  expect(second.status, JSON.stringify(second.body)).toBe(429);
  // The second did not even run ahead (a read past the bound is not run to be thrown away).
  expect(ranAhead).toBe(1);
  // Once the first is over, the tenant has its slot again, and a Read runs ahead as before.
  expect((await read(sids[1]!)).body.job.status).toBe("succeeded");
  expect(ranAhead).toBe(2);
  store.insertFinished = real;
}, 60_000);
