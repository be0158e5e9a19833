/** An idempotency key names one call: the same body returns its job, a different body is a 409. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newTenantCase, type TenantCase } from "./tenancy-fixture.js";

let t: TenantCase["t"];
let a: TenantCase["a"];
let sid: string;

beforeEach(async () => {
  ({ t, a, sid } = await newTenantCase({ allow: ["Read"] }));
});
afterEach(() => t.close());

const submit = (body: unknown) => t.call("POST", `/v1/sessions/${sid}/calls`, { key: a.agentKey, body });
const read = (file_path: string, extra: Record<string, unknown> = {}) => ({
  tool: "Read",
  input: { file_path, ...extra },
  idempotencyKey: "k1",
});

describe("idempotency keys", () => {
  it("the same body (keys in any order) returns the first job", async () => {
    const one = await submit(read("/workspace/a", { limit: 5, offset: 1 }));
    const two = await submit({
      idempotencyKey: "k1",
      input: { offset: 1, limit: 5, file_path: "/workspace/a" },
      tool: "Read",
    });
    expect(two.status, JSON.stringify(two.body)).toBe(202);
    expect(two.body.job.id).toBe(one.body.job.id);
    expect(t.bus.enqueued).toEqual([one.body.job.id]);
  });

  it("a different body with the same key is 409 CONFLICT naming the key, and nothing is created", async () => {
    const one = await submit(read("/workspace/a"));
    for (const other of [
      read("/workspace/b"),
      { ...read("/workspace/a"), tool: "Glob" },
      read("/workspace/a", { limit: 3 }),
    ]) {
      const res = await submit(other);
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.error.code).toBe("CONFLICT");
      expect(res.body.error.message).toContain('"k1"');
    }
    expect(t.bus.enqueued).toEqual([one.body.job.id]);
    // The key is per session: another session may use it for another call.
    const sid2 = (await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} })).body.id;
    const elsewhere = await t.call("POST", `/v1/sessions/${sid2}/calls`, {
      key: a.agentKey,
      body: read("/workspace/b"),
    });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(202);
  });

  it("concurrent submits with one key: the same body shares one job, a different body gets 409, never a 5xx", async () => {
    const bodies = Array.from({ length: 12 }, (_, i) =>
      read(i % 3 === 2 ? "/workspace/other" : "/workspace/a"),
    );
    const answers = await Promise.all(bodies.map(submit));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    const winners = new Set(answers.filter((r) => r.status === 202).map((r) => r.body.job.id));
    expect(winners.size).toBe(1);
    expect(t.bus.enqueued).toEqual([...winners]);
    // Whichever body won, every request with the other body was refused.
    const wonWith = answers.find((r) => r.status === 202)!.body.job.input.file_path;
    answers.forEach((r, i) => {
      expect(r.status).toBe(bodies[i]!.input.file_path === wonWith ? 202 : 409);
    });
  });
});
