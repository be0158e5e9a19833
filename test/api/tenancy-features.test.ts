/**
 * Tenant features through the API (no worker: the queue is in memory): external tools, the
 * audit trail, the active-calls quota and fair priorities, key listing, idempotent submits.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fairPriority } from "../../src/service/calls/fair-priority.js";
import { ADMIN_KEY, seedTenant } from "../support/harness.js";
import { LOOKUP_TOOL, newTenantCase, scenarioHelpers, type TenantCase } from "./tenancy-fixture.js";

let t: TenantCase["t"];
let a: TenantCase["a"];
let sid: string;

const { as, rules, settings, submit, approve } = scenarioHelpers(() => ({ t, a, sid }));

beforeEach(async () => {
  ({ t, a, sid } = await newTenantCase());
});
afterEach(() => t.close());

describe("external tools", () => {
  beforeEach(async () => {
    const put = await as(a.adminKey, "PUT", `/v1/tenants/${a.tenantId}/tools`, [LOOKUP_TOOL]);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  });

  it("are listed, wait in awaiting_external and complete with a posted result", async () => {
    const tools = await as(a.agentKey, "GET", `/v1/sessions/${sid}/tools`);
    expect(tools.body.tools.map((x: { name: string }) => x.name)).toContain("lookup");
    await rules({ allow: ["lookup"] });
    const job = await submit("lookup", { q: "acme" });
    expect(job.status).toBe("awaiting_external");
    expect(t.bus.enqueued).toEqual([]);
    const bad = await as(a.agentKey, "POST", `/v1/jobs/${job.id}/external-result`, {
      content: [{ type: "text" }],
    });
    expect(bad.body.error.details[0].path).toBe("content[0].text");
    const res = await as(a.agentKey, "POST", `/v1/jobs/${job.id}/external-result`, {
      content: [{ type: "text", text: "ACME Corp" }],
    });
    expect(res.body.job).toMatchObject({
      status: "succeeded",
      result: { content: [{ type: "text", text: "ACME Corp" }], state: "success" },
    });
    const again = await as(a.adminKey, "POST", `/v1/jobs/${job.id}/external-result`, {
      content: [{ type: "text", text: "x" }],
    });
    expect(again.status).toBe(409);
  });

  it("an ask for an external tool, once approved, waits for its result; isError fails it", async () => {
    const writer = { ...LOOKUP_TOOL, name: "crm_update", readOnly: false };
    await as(a.adminKey, "PUT", `/v1/tenants/${a.tenantId}/tools`, [LOOKUP_TOOL, writer]);
    await rules({ ask: ["crm_update"] }); // external tools allow themselves; a rule makes them ask
    const job = await submit("crm_update", { q: "acme" });
    expect(job.status).toBe("awaiting_approval");
    expect((await approve(job.id, { approve: true })).body.job.status).toBe("awaiting_external");
    const res = await as(a.adminKey, "POST", `/v1/jobs/${job.id}/external-result`, {
      content: [{ type: "text", text: "boom" }],
      isError: true,
    });
    expect(res.body.job).toMatchObject({ status: "failed", result: { state: "error" } });
  });

  it("a result for a job that is not awaiting one is a 409; bad definitions are a 400", async () => {
    await rules({ allow: ["Read"] });
    const job = await submit("Read", { file_path: "/workspace/a" });
    expect(
      (
        await as(a.agentKey, "POST", `/v1/jobs/${job.id}/external-result`, {
          content: [{ type: "text", text: "x" }],
        })
      ).status,
    ).toBe(409);
    const clash = await as(a.adminKey, "PUT", `/v1/tenants/${a.tenantId}/tools`, [
      { ...LOOKUP_TOOL, name: "Bash" },
    ]);
    expect(clash.body.error.details[0].path).toBe("[0].name");
    const schema = await as(a.adminKey, "PUT", `/v1/tenants/${a.tenantId}/tools`, [
      { ...LOOKUP_TOOL, inputSchema: { type: "string" } },
    ]);
    expect(schema.status).toBe(400);
  });
});

describe("external tools' JSON schemas (Ajv)", () => {
  it("a call whose input breaks `pattern`, `minItems` or a `$ref` is a 400 naming the field", async () => {
    const orders = {
      name: "cancel_order",
      description: "Cancels an order.",
      inputSchema: {
        type: "object",
        $defs: { reason: { type: "string", enum: ["fraud", "customer"] } },
        properties: {
          order_id: { type: "string", pattern: "^ORD-[0-9]{6}$" },
          lines: { type: "array", minItems: 1, items: { type: "integer" } },
          reason: { $ref: "#/$defs/reason" },
        },
        required: ["order_id"],
      },
    };
    const put = await as(a.adminKey, "PUT", `/v1/tenants/${a.tenantId}/tools`, [orders]);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const post = (input: object) =>
      as(a.agentKey, "POST", `/v1/sessions/${sid}/calls`, { tool: "cancel_order", input });
    const injected = await post({ order_id: "DROP TABLE" });
    expect(injected.status).toBe(400);
    expect(injected.body.error.code).toBe("VALIDATION");
    expect(injected.body.error.details).toEqual([
      { path: "input.order_id", message: "must match the pattern ^ORD-[0-9]{6}$" },
    ]);
    expect((await post({ order_id: "ORD-123456", lines: [] })).body.error.details[0].path).toBe(
      "input.lines",
    );
    expect((await post({ order_id: "ORD-123456", reason: "bored" })).body.error.details[0].path).toBe(
      "input.reason",
    );
    expect((await post({ order_id: "ORD-123456", lines: [1], reason: "fraud" })).status).toBe(202);
    const broken = await as(a.adminKey, "PUT", `/v1/tenants/${a.tenantId}/tools`, [
      { ...orders, inputSchema: { type: "object", properties: { x: { $ref: "#/$defs/none" } } } },
    ]);
    expect(broken.status).toBe(400);
    expect(broken.body.error.details[0].path).toBe("[0].inputSchema");
  });
});

describe("audit", () => {
  it("records decisions and approvals with an input digest, never the raw input", async () => {
    const job = await submit("Bash", { command: "npm publish --token TOPSECRET-123" });
    await approve(job.id, { approve: false });
    const log = await as(a.adminKey, "GET", `/v1/tenants/${a.tenantId}/audit?sessionId=${sid}`);
    expect(log.body.entries.map((e: { kind: string }) => e.kind)).toEqual(["approval", "decision"]);
    expect(JSON.stringify(log.body)).not.toContain("TOPSECRET");
    const [approval, decision] = log.body.entries;
    expect(decision.data).toMatchObject({
      tool: "Bash",
      inputDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      decision: { behavior: "ask" },
    });
    expect(approval.data).toMatchObject({
      approve: false,
      approvedBy: approval.actorKeyId,
      inputDigest: decision.data.inputDigest,
    });
  });
});

describe("quotas and fairness", () => {
  it("queued + running calls past the tenant's limit answer 429 with Retry-After", async () => {
    await settings({ quotas: { maxActiveCalls: 2 } }, ADMIN_KEY);
    await rules({ allow: ["Read"] });
    await submit("Read", { file_path: "/workspace/a" });
    await submit("Read", { file_path: "/workspace/b" });
    const over = await as(a.agentKey, "POST", `/v1/sessions/${sid}/calls`, {
      tool: "Read",
      input: { file_path: "/workspace/c" },
    });
    expect(over.status, JSON.stringify(over.body)).toBe(429);
    expect(over.headers.get("retry-after")).toBe("2");
  });

  it("a call's priority is 1 + its tenant's other queued or running calls", async () => {
    await rules({ allow: ["Read"] });
    const jobs = [];
    for (let i = 0; i < 3; i++) jobs.push(await submit("Read", { file_path: `/workspace/${i}` }));
    expect(await Promise.all(jobs.map((j) => fairPriority(t.deps.db, j.id)))).toEqual([3, 3, 3]);
    const b = await seedTenant(t.call, "b");
    await t.call("PUT", `/v1/tenants/${b.tenantId}/rules`, {
      key: b.adminKey,
      body: { allow: ["Read"], deny: [], ask: [] },
    });
    const bs = (await t.call("POST", "/v1/sessions", { key: b.agentKey, body: {} })).body.id;
    const bj = await t.call("POST", `/v1/sessions/${bs}/calls`, {
      key: b.agentKey,
      body: { tool: "Read", input: { file_path: "/workspace/x" } },
    });
    expect(await fairPriority(t.deps.db, bj.body.job.id)).toBe(1);
    expect(await fairPriority(t.deps.db, "job_gone")).toBe(1);
  });
});

describe("keys and idempotency", () => {
  it("lists the tenant's keys without secrets, revoked ones marked", async () => {
    const extra = await as(a.adminKey, "POST", `/v1/tenants/${a.tenantId}/keys`, {
      role: "agent",
      name: "ci",
    });
    await as(a.adminKey, "DELETE", `/v1/keys/${extra.body.id}`);
    const res = await as(a.adminKey, "GET", `/v1/tenants/${a.tenantId}/keys`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain(extra.body.key);
    const ci = res.body.keys.find((k: { id: string }) => k.id === extra.body.id);
    expect(ci).toEqual({
      id: extra.body.id,
      role: "agent",
      name: "ci",
      createdAt: expect.any(String),
      revokedAt: expect.any(String),
    });
    expect(res.body.keys.every((k: object) => !("hash" in k) && !("key" in k))).toBe(true);
  });

  it("two concurrent submits with one idempotency key make one job", async () => {
    await rules({ allow: ["Read"] });
    const body = { tool: "Read", input: { file_path: "/workspace/a" }, idempotencyKey: "once" };
    const [one, two] = await Promise.all([
      as(a.agentKey, "POST", `/v1/sessions/${sid}/calls`, body),
      as(a.agentKey, "POST", `/v1/sessions/${sid}/calls`, body),
    ]);
    expect([one.status, two.status], JSON.stringify([one.body, two.body])).toEqual([202, 202]);
    expect(two.body.job.id).toBe(one.body.job.id);
    expect(t.bus.enqueued).toHaveLength(1);
  });
});
