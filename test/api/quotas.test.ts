/** Per-tenant quotas answer 429 RATE_LIMITED with Retry-After, and only for that tenant. */
import { afterEach, beforeEach, expect, it } from "vitest";
import { ADMIN_KEY, createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider(), { maxSessions: 2, callsPerMinute: 2 });
});
afterEach(() => t.close());

it("limits active sessions and calls per minute per tenant", async () => {
  const a = await seedTenant(t.call, "a");
  const b = await seedTenant(t.call, "b");
  const s1 = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
  expect(s1.status, JSON.stringify(s1.body)).toBe(201);
  const s2 = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
  expect(s2.status, JSON.stringify(s2.body)).toBe(201);
  const third = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
  expect(third.status, JSON.stringify(third.body)).toBe(429);
  expect(third.body.error.code).toBe("RATE_LIMITED");
  expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
  expect((await t.call("POST", "/v1/sessions", { key: b.agentKey, body: {} })).status).toBe(201);

  const call = () =>
    t.call("POST", `/v1/sessions/${s1.body.id}/calls`, {
      key: a.agentKey,
      body: { tool: "Read", input: { file_path: "/workspace/a" } },
    });
  expect((await call()).status).toBe(202);
  expect((await call()).status).toBe(202);
  const over = await call();
  expect(over.status, JSON.stringify(over.body)).toBe(429);
  expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
});

/** A tenant held to one active call, with these rules, and a session of it. */
async function atOneActiveCall(rules: { allow: string[]; deny: string[]; ask: string[] }) {
  const a = await seedTenant(t.call, "a");
  await t.call("PUT", `/v1/tenants/${a.tenantId}/settings`, {
    key: ADMIN_KEY,
    body: { quotas: { maxActiveCalls: 1, callsPerMinute: 100 } },
  });
  await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, { key: a.adminKey, body: rules });
  const sid: string = (await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} })).body.id;
  return { a, sid };
}

it("an approval that would queue a call past maxActiveCalls is a 429 and leaves the job pending", async () => {
  const { a, sid } = await atOneActiveCall({ allow: ["Read"], deny: [], ask: ["Bash"] });
  const submit = async (tool: string, input: unknown) =>
    (await t.call("POST", `/v1/sessions/${sid}/calls`, { key: a.agentKey, body: { tool, input } })).body.job;
  // Pending approvals take no slot; the queued Read takes the only one.
  const asked = await submit("Bash", { command: "ls" });
  expect(asked.status).toBe("awaiting_approval");
  const read = await submit("Read", { file_path: "/workspace/a" });
  expect(read.status).toBe("queued");
  const approve = () =>
    t.call("POST", `/v1/jobs/${asked.id}/approval`, { key: a.adminKey, body: { approve: true } });
  const over = await approve();
  expect(over.status, JSON.stringify(over.body)).toBe(429);
  expect(over.body.error.message).toBe("the tenant already has 1 calls queued or running");
  expect(over.headers.get("retry-after")).toBe("2");
  expect((await t.call("GET", `/v1/jobs/${asked.id}`, { key: a.adminKey })).body.job.status).toBe(
    "awaiting_approval",
  );
  // Once the slot is free the same answer goes through.
  await t.call("POST", `/v1/jobs/${read.id}/cancel`, { key: a.agentKey });
  expect((await t.call("GET", `/v1/jobs/${read.id}`, { key: a.adminKey })).body.job.status).toBe("cancelled");
  const ok = await approve();
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  expect(ok.body.job.status).toBe("queued");
});

it("at maxActiveCalls every submit is refused, whatever it would have become, and nothing of it is stored", async () => {
  // A call that would take a slot (queued: a Read without wait or with a key, a Bash; or one that
  // may run ahead) is held to the bound by the transaction that would store it. Every other
  // submit is refused early by the count: an ask-call and a denied one (neither would take a
  // slot), and a call whose plan fails (the refusal wins over its error, as before).
  const { a, sid } = await atOneActiveCall({ allow: ["Read", "Bash"], deny: ["Write"], ask: ["Edit"] });
  const submit = (body: Record<string, unknown>, query = "") =>
    t.call("POST", `/v1/sessions/${sid}/calls${query}`, { key: a.agentKey, body });
  const taken = await submit({ tool: "Read", input: { file_path: "/workspace/a" } });
  expect(taken.body.job.status).toBe("queued");
  const over = [
    await submit({ tool: "Edit", input: { file_path: "/workspace/a", old_string: "x", new_string: "y" } }),
    await submit({ tool: "Write", input: { file_path: "/workspace/a", content: "x" } }),
    await submit({ tool: "Read", input: { file_path: "/workspace/a" } }),
    await submit({ tool: "Read", input: { file_path: "/workspace/a" }, idempotencyKey: "k1" }, "?wait=1"),
    await submit({ tool: "Bash", input: { command: "true" } }),
    await submit({ tool: "NoSuchTool", input: {} }),
  ];
  expect(over.map((r) => [r.status, r.body.error?.message])).toEqual(
    over.map(() => [429, "the tenant already has 1 calls queued or running"]),
  );
  // The one that may run ahead is held to the bound by its store (no sandbox here: the usual path).
  const ahead = await submit({ tool: "Read", input: { file_path: "/workspace/a" } }, "?wait=1");
  expect(ahead.status, JSON.stringify(ahead.body)).toBe(429);
  // Nothing of them was stored: the queued Read is the session's only job.
  const jobs = await t.call("GET", `/v1/jobs?sessionId=${sid}&limit=100`, { key: a.agentKey });
  expect(jobs.body.items.map((j: { id: string }) => j.id)).toEqual([taken.body.job.id]);
});
