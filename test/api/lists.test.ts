/** The lists (jobs, sessions, tenants, approvals): pages, filters, tenancy and bad filters. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ADMIN_KEY, createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let a: Awaited<ReturnType<typeof seedTenant>>;
let b: Awaited<ReturnType<typeof seedTenant>>;

const RULES = { allow: ["Read"], deny: ["Bash(rm:*)"], ask: ["Bash(touch:*)"] };

beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  a = await seedTenant(t.call, "a");
  b = await seedTenant(t.call, "b");
  for (const x of [a, b])
    await t.call("PUT", `/v1/tenants/${x.tenantId}/rules`, { key: x.adminKey, body: RULES });
});
afterEach(() => t.close());

interface Row {
  id: string;
  createdAt: string;
}

/** The list order: newest first by createdAt, then id (calls in one millisecond tie on time). */
const newestFirst = (rows: Row[]) =>
  [...rows]
    .sort((x, y) =>
      x.createdAt === y.createdAt ? y.id.localeCompare(x.id) : y.createdAt.localeCompare(x.createdAt),
    )
    .map((r) => r.id);

const sessionRows: Row[] = [];

async function session(key: string): Promise<string> {
  const res = await t.call("POST", "/v1/sessions", { key, body: {} });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  sessionRows.push(res.body);
  return res.body.id;
}

async function submit(key: string, sid: string, tool: string, input: Record<string, unknown>) {
  const res = await t.call("POST", `/v1/sessions/${sid}/calls`, { key, body: { tool, input } });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body.job as { id: string; status: string; createdAt: string };
}

/** Every item of a list, page by page; also returns the page sizes seen. */
async function walk(path: string, key: string, limit: number) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  const sep = path.includes("?") ? "&" : "?";
  do {
    const q: string = `${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res = await t.call("GET", path + q, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.items.map((i: { id?: string; job?: { id: string } }) => i.id ?? i.job?.id));
    sizes.push(res.body.items.length);
    cursor = res.body.nextCursor;
  } while (cursor);
  return { ids, sizes };
}

describe("GET /v1/jobs", () => {
  it("pages newest first without gaps or repeats, and only the caller's tenant", async () => {
    const sid = await session(a.agentKey);
    const made: Row[] = [];
    for (let i = 0; i < 7; i++) made.push(await submit(a.agentKey, sid, "Read", { file_path: `/w/${i}` }));
    const order = newestFirst(made);
    const other = await session(b.agentKey);
    const theirs = await submit(b.agentKey, other, "Read", { file_path: "/x" });

    const { ids, sizes } = await walk("/v1/jobs", a.agentKey, 3);
    expect(sizes).toEqual([3, 3, 1]);
    expect(ids).toEqual(order);
    expect(ids).not.toContain(theirs.id);

    // A job added while paging does not shift the next page: the cursor is a position, not an offset.
    const first = await t.call("GET", "/v1/jobs?limit=3", { key: a.adminKey });
    await submit(a.agentKey, sid, "Read", { file_path: "/w/new" });
    const second = await t.call("GET", `/v1/jobs?limit=3&cursor=${first.body.nextCursor}`, {
      key: a.adminKey,
    });
    expect(second.body.items.map((j: { id: string }) => j.id)).toEqual(order.slice(3, 6));
  });

  it("filters by session, status (repeated or comma-separated), tool and time", async () => {
    const s1 = await session(a.agentKey);
    const s2 = await session(a.agentKey);
    const read = await submit(a.agentKey, s1, "Read", { file_path: "/a" });
    const ask = await submit(a.agentKey, s1, "Bash", { command: "touch x" });
    const denied = await submit(a.agentKey, s2, "Bash", { command: "rm -rf x" });
    expect([read.status, ask.status, denied.status]).toEqual(["queued", "awaiting_approval", "denied"]);

    const ids = async (q: string) => {
      const res = await t.call("GET", `/v1/jobs?${q}`, { key: a.adminKey });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.items.map((j: { id: string }) => j.id);
    };
    expect(await ids(`sessionId=${s1}`)).toEqual(newestFirst([ask, read]));
    expect(await ids("status=awaiting_approval")).toEqual([ask.id]);
    expect(await ids("status=awaiting_approval&status=denied")).toEqual(newestFirst([denied, ask]));
    expect(await ids("status=denied,queued")).toEqual(newestFirst([denied, read]));
    expect(await ids("tool=Bash")).toEqual(newestFirst([denied, ask]));
    expect(await ids(`sessionId=${s2}&tool=Read`)).toEqual([]);
    expect(await ids(`since=${encodeURIComponent(ask.createdAt)}&tool=Bash`)).toContain(ask.id);
    expect(await ids(`until=${encodeURIComponent(read.createdAt)}`)).not.toContain(read.id);
    expect(await ids("until=2999-01-01T00:00:00Z&since=2000-01-01T00:00:00%2B02:00")).toHaveLength(3);
  });

  it("bad filters are a 400 naming the field", async () => {
    const bad = async (q: string, field: string) => {
      const res = await t.call("GET", `/v1/jobs?${q}`, { key: a.agentKey });
      expect(res.status, `${q}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION");
      expect(res.body.error.details[0].path).toBe(field);
    };
    await bad("status=waiting", "status");
    await bad("status=queued,nope", "status");
    await bad("cursor=not-a-cursor", "cursor");
    await bad("limit=0", "limit");
    await bad("limit=201", "limit");
    await bad("limit=ten", "limit");
    await bad("since=yesterday", "since");
    await bad("until=2026-13-45T99:00:00Z", "until");
  });

  it("the platform admin lists every tenant or the one it names; a tenant key naming another gets 404", async () => {
    const sa = await session(a.agentKey);
    const sb = await session(b.agentKey);
    const ja = await submit(a.agentKey, sa, "Read", { file_path: "/a" });
    const jb = await submit(b.agentKey, sb, "Read", { file_path: "/b" });
    const all = await t.call("GET", "/v1/jobs", { key: ADMIN_KEY });
    expect(all.body.items.map((j: { id: string }) => j.id)).toEqual(newestFirst([ja, jb]));
    const one = await t.call("GET", `/v1/jobs?tenantId=${a.tenantId}`, { key: ADMIN_KEY });
    expect(one.body.items.map((j: { id: string }) => j.id)).toEqual([ja.id]);
    const cross = await t.call("GET", `/v1/jobs?tenantId=${b.tenantId}`, { key: a.adminKey });
    expect(cross.status).toBe(404);
    const own = await t.call("GET", `/v1/jobs?tenantId=${a.tenantId}`, { key: a.agentKey });
    expect(own.body.items.map((j: { id: string }) => j.id)).toEqual([ja.id]);
    const otherSession = await t.call("GET", `/v1/jobs?sessionId=${sb}`, { key: a.agentKey });
    expect(otherSession.body.items).toEqual([]);
  });
});

describe("GET /v1/sessions", () => {
  it("pages the tenant's sessions and filters by status", async () => {
    sessionRows.length = 0;
    const made: string[] = [];
    for (let i = 0; i < 4; i++) made.push(await session(a.agentKey));
    const mine = newestFirst(sessionRows);
    await session(b.agentKey);
    expect(await t.call("DELETE", `/v1/sessions/${made[1]}`, { key: a.agentKey })).toMatchObject({
      status: 204,
    });
    const { ids, sizes } = await walk("/v1/sessions", a.agentKey, 2);
    expect(sizes).toEqual([2, 2]);
    expect(ids).toEqual(mine);
    const active = await t.call("GET", "/v1/sessions?status=active", { key: a.adminKey });
    expect(active.body.items.map((s: { id: string }) => s.id)).toEqual(mine.filter((id) => id !== made[1]));
    const deleted = await t.call("GET", "/v1/sessions?status=deleted", { key: a.adminKey });
    expect(deleted.body.items).toMatchObject([{ id: made[1], status: "deleted" }]);
    const bad = await t.call("GET", "/v1/sessions?status=gone", { key: a.adminKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("status");
  });
});

describe("GET /v1/tenants", () => {
  it("pages every tenant for the platform admin; a tenant key is refused with the role it needs", async () => {
    for (let i = 0; i < 3; i++)
      await t.call("POST", "/v1/tenants", { key: ADMIN_KEY, body: { name: `t${i}` } });
    const { ids, sizes } = await walk("/v1/tenants", ADMIN_KEY, 2);
    expect(sizes).toEqual([2, 2, 1]);
    const all = (await t.call("GET", "/v1/tenants", { key: ADMIN_KEY })).body.items;
    expect(all).toHaveLength(5);
    expect(all[0]).toEqual({
      id: expect.stringMatching(/^ten_/),
      name: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(ids).toEqual(newestFirst(all));
    expect(new Set(ids)).toContain(a.tenantId);
    const refused = await t.call("GET", "/v1/tenants", { key: a.adminKey });
    expect(refused.status).toBe(403);
  });
});

describe("GET /v1/approvals", () => {
  it("lists the tenant's pending approvals with what the approver needs, and not once answered", async () => {
    const sid = await session(a.agentKey);
    await submit(a.agentKey, sid, "Read", { file_path: "/a" });
    const ask1 = await submit(a.agentKey, sid, "Bash", { command: "touch one" });
    const ask2 = await submit(a.agentKey, sid, "Bash", { command: "touch two" });
    const sb = await session(b.agentKey);
    await submit(b.agentKey, sb, "Bash", { command: "touch theirs" });

    const res = await t.call("GET", "/v1/approvals", { key: a.adminKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items.map((i: { job: { id: string } }) => i.job.id)).toEqual(newestFirst([ask1, ask2]));
    const two = res.body.items.find((i: { job: { id: string } }) => i.job.id === ask2.id);
    expect(two).toMatchObject({
      job: { id: ask2.id, status: "awaiting_approval", input: { command: "touch two" } },
      decision: { message: expect.any(String), suggestions: expect.any(Array) },
      expiresAt: expect.any(String),
    });
    expect(res.body.nextCursor).toBeNull();

    await t.call("POST", `/v1/jobs/${ask2.id}/approval`, { key: a.adminKey, body: { approve: false } });
    const after = await t.call("GET", `/v1/approvals?sessionId=${sid}`, { key: a.adminKey });
    expect(after.body.items.map((i: { job: { id: string } }) => i.job.id)).toEqual([ask1.id]);

    const agent = await t.call("GET", "/v1/approvals", { key: a.agentKey });
    expect(agent.status).toBe(403);
    expect(agent.body.error.message).toContain("tenant_admin");
  });
});

describe("role errors", () => {
  it("name the role that is needed, in words", async () => {
    const tenants = await t.call("GET", "/v1/tenants", { key: a.agentKey });
    expect(tenants.body.error.message).toBe("an agent key may not do this: it needs the platform admin key");
    const rules = await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, { key: a.agentKey, body: RULES });
    expect(rules.status).toBe(403);
    expect(rules.body.error.message).toBe(
      "an agent key may not do this: it needs a tenant_admin key (or the platform admin key)",
    );
  });
});
