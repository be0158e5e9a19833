/**
 * A tenant's maxActiveCalls holds under concurrent submits through the real API, queue and
 * sandboxes: every submit of a burst passes the early count together, and only the write that
 * queues a call (one serialized transaction per tenant) keeps the tenant to its limit.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_KEY, type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { waitForJobs } from "../support/wait-for-job.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const LIMIT = 2;
const BURST = 8;

it("a burst of concurrent submits takes exactly maxActiveCalls slots; the rest are 429", async () => {
  const t = await seedBashTenant(h.call);
  const set = await h.call("PUT", `/v1/tenants/${t.tenantId}/settings`, {
    key: ADMIN_KEY,
    body: { quotas: { maxActiveCalls: LIMIT } },
  });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  const sids: string[] = [];
  for (let i = 0; i < 2; i++)
    sids.push((await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id);
  // Every request is sent before any answer is read; the calls stay active until cancelled.
  const answers = await Promise.all(
    Array.from({ length: BURST }, (_, i) =>
      h.call("POST", `/v1/sessions/${sids[i % 2]}/calls`, {
        key: t.agentKey,
        body: { tool: "Bash", input: { command: "sleep 30" } },
      }),
    ),
  );
  const accepted = answers.filter((a) => a.status === 202);
  const refused = answers.filter((a) => a.status === 429);
  expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body))).toEqual([
    ...Array(LIMIT).fill(202),
    ...Array(BURST - LIMIT).fill(429),
  ]);
  for (const r of refused) {
    expect(r.body.error).toMatchObject({
      code: "RATE_LIMITED",
      message: `the tenant already has ${LIMIT} calls queued or running`,
    });
    expect(r.headers.get("retry-after")).toBe("2");
  }
  // Nothing of the refused submits was stored: the tenant's job list holds the accepted ones only.
  const listed = await h.call("GET", "/v1/jobs?limit=100", { key: t.adminKey });
  expect(listed.body.items.map((j: { id: string }) => j.id).sort()).toEqual(
    accepted.map((a) => a.body.job.id as string).sort(),
  );

  const ids = accepted.map((a) => a.body.job.id as string);
  for (const id of ids) await h.call("POST", `/v1/jobs/${id}/cancel`, { key: t.agentKey });
  const ended = await waitForJobs(h.call, t.agentKey, ids, undefined, { timeoutMs: 60_000 });
  expect(ended.map((j) => j.status)).toEqual(["cancelled", "cancelled"]);
  // The slots are free again.
  const after = await h.call("POST", `/v1/sessions/${sids[0]}/calls?wait=60`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "true" } },
  });
  expect(after.status, JSON.stringify(after.body)).toBe(200);
  expect(after.body.job.status).toBe("succeeded");
  for (const sid of sids) await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
});
