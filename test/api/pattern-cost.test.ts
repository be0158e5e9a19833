/**
 * Globs and rule wildcards meet an agent's input on the API's one thread: each case below took
 * from seconds to hours with backtracking regexes (attack23a), so one tenant stalled every
 * tenant's requests. Each must now answer at once; a hang fails the test by its timeout.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newTenantCase, scenarioHelpers, type TenantCase } from "./tenancy-fixture.js";

let t: TenantCase["t"];
let a: TenantCase["a"];
let sid: string;

const { as, rules, submit } = scenarioHelpers(() => ({ t, a, sid }));

beforeEach(async () => {
  ({ t, a, sid } = await newTenantCase());
});
afterEach(() => t.close());

const A200 = "a".repeat(200);
const STARRED = "*a*a*a*a*a*a*a*a*b";

describe("matching cost is linear in the input and the pattern", () => {
  it("an agent's glob path argument against the dangerous names (no rule needed)", async () => {
    const job = await submit("Bash", { command: `cp notes ~/.${"*".repeat(60)}q` });
    expect(job.status).toBeDefined();
  });

  it("a tenant's file rule with many stars against a long file name", async () => {
    const put = await rules({ deny: [`Read(${STARRED})`] });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const job = await submit("Read", { file_path: `/workspace/${A200}` });
    expect(job.decision.rule).toBeUndefined();
  });

  it("a tenant's file rule with many globstars against a deep path", async () => {
    const put = await rules({ deny: ["Read(/**/**/**/**/**/**/**/**/x)"] });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const job = await submit("Read", { file_path: `/${"a/".repeat(300)}y` });
    expect(job.decision.rule).toBeUndefined();
  });

  it("a tenant's Bash rule with many stars against a long command", async () => {
    const put = await rules({ deny: [`Bash(${STARRED})`] });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const job = await submit("Bash", { command: A200 });
    expect(job.decision.rule).toBeUndefined();
  });

  it("the policy check a tenant admin may call, with its own rule", async () => {
    const res = await as(a.adminKey, "POST", "/v1/policy/check", {
      tool: "Bash",
      input: { command: A200 },
      rule: `Bash(${STARRED})`,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain(STARRED);
  });
});

describe("a rule set is bounded where it is written (every call's decision walks it)", () => {
  const path = () => `/v1/tenants/${a.tenantId}/rules`;
  const many = Array.from({ length: 501 }, (_, i) => `Read(/x/${i})`);
  const long = `Bash(${"x".repeat(2100)})`;

  it.each([
    {
      method: "PUT",
      suffix: "",
      body: { allow: [], deny: many, ask: [] },
      field: "deny",
      message: "at most 500",
    },
    {
      method: "PUT",
      suffix: "",
      body: { allow: [long], deny: [], ask: [] },
      field: "allow[0]",
      message: "at most 2048",
    },
    {
      method: "POST",
      suffix: "/dry-run",
      body: { allow: [], deny: [], ask: many },
      field: "ask",
      message: "at most 500",
    },
    {
      method: "POST",
      suffix: "/dry-run",
      body: { allow: [], deny: ["Read(/a)", long], ask: [] },
      field: "deny[1]",
      message: "at most 2048",
    },
  ])("$method rules$suffix: 400 naming $field", async ({ method, suffix, body, field, message }) => {
    const res = await as(a.adminKey, method, `${path()}${suffix}`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION");
    expect(res.body.error.details).toEqual([{ path: field, message: expect.stringContaining(message) }]);
  });

  it("a set at the bounds is stored", async () => {
    const deny = many.slice(0, 500);
    const res = await rules({ deny, allow: [`Bash(${"x".repeat(2000)})`] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe("a tenant's input schema `pattern` runs in linear time on the API's thread", () => {
  const tool = (pattern: string) => ({
    name: "lookup",
    description: "Looks a customer up.",
    inputSchema: { type: "object", properties: { q: { type: "string", pattern } }, required: ["q"] },
    readOnly: true,
  });
  const putTool = (pattern: string) =>
    as(a.adminKey, "PUT", `/v1/tenants/${a.tenantId}/tools`, [tool(pattern)]);
  const call = async (q: string) => {
    const s = await as(a.agentKey, "POST", "/v1/sessions", {});
    return as(a.agentKey, "POST", `/v1/sessions/${s.body.id}/calls`, { tool: "lookup", input: { q } });
  };

  it("a nested quantifier against a long non-matching input: a 400 naming the field", async () => {
    const put = await putTool("^(a+)+$");
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const res = await call(`${"a".repeat(40)}!`);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "input.q", message: "must match the pattern ^(a+)+$" }]);
  });

  it.each([
    { pattern: "^ORD-[0-9]{6}$", good: "ORD-123456", bad: "ORD-12" },
    { pattern: "^[\\u0041-\\u005a]+$", good: "ABC", bad: "abc" },
    { pattern: "^\\p{L}+$", good: "héllo", bad: "h3llo" },
    { pattern: "^.{1,5}$", good: "abcde", bad: "abcdef" },
  ])("$pattern keeps its meaning", async ({ pattern, good, bad }) => {
    const put = await putTool(pattern);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const ok = await call(good);
    expect(ok.status, JSON.stringify(ok.body)).toBeLessThan(300);
    const no = await call(bad);
    expect(no.status, JSON.stringify(no.body)).toBe(400);
  });

  it.each(["(?=a)a", "(a)\\1"])(
    "%s (lookaround, backreference) is refused when the tool is saved",
    async (pattern) => {
      const res = await putTool(pattern);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details?.[0]?.message).toMatch(/linear time/);
    },
  );
});

describe("a tenant's input schema is bounded in the work one validation does", () => {
  const put = (inputSchema: object) =>
    as(a.adminKey, "PUT", `/v1/tenants/${a.tenantId}/tools`, [
      { name: "lookup", description: "Looks a customer up.", inputSchema, readOnly: true },
    ]);

  it("definitions that double through $ref (2^30 checks per call): a 400 naming the schema", async () => {
    const definitions: Record<string, object> = { d0: { type: "string" } };
    for (let i = 1; i <= 30; i++) {
      const ref = { $ref: `#/definitions/d${i - 1}` };
      definitions[`d${i}`] = { allOf: [ref, ref] };
    }
    const res = await put({ type: "object", definitions, properties: { q: { $ref: "#/definitions/d30" } } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: "[0].inputSchema", message: expect.stringContaining("more than 100000 subschemas") },
    ]);
  });

  it("a recursive schema (a tree) and a shared definition are fine", async () => {
    const node = { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } };
    const res = await put({ $defs: { node }, type: "object", properties: { a: { $ref: "#/$defs/node" } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("a remote $ref is a 400 (Ajv never fetches)", async () => {
    const res = await put({ type: "object", properties: { q: { $ref: "http://127.0.0.1:9/s.json" } } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details[0].message).toContain("can't resolve reference");
  });
});
