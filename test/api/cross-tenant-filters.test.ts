/**
 * The lists' id filters (attack22b): another tenant's session or job id given as a filter answers
 * exactly as an id that exists nowhere (same status, same body): no list leaks another tenant's
 * rows, and none tells whether the id exists.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { twoTenants, type World } from "./tenancy-fixture.js";

let w: World;
beforeAll(async () => {
  w = await twoTenants();
});
afterAll(async () => {
  await w?.t.close?.();
});

const FILTERS: {
  name: string;
  who: "agentKey" | "adminKey";
  path: (w: World, id: string) => string;
  id: (s: World["b"]) => string;
}[] = [
  {
    name: "GET /v1/jobs?sessionId",
    who: "agentKey",
    path: (_w, id) => `/v1/jobs?sessionId=${id}`,
    id: (s) => s.sid,
  },
  {
    name: "GET /v1/approvals?sessionId",
    who: "adminKey",
    path: (_w, id) => `/v1/approvals?sessionId=${id}`,
    id: (s) => s.sid,
  },
  {
    name: "GET /v1/approvals?tenantId",
    who: "adminKey",
    path: (_w, id) => `/v1/approvals?tenantId=${id}`,
    id: (s) => s.tenantId,
  },
  {
    name: "GET /v1/tenants/{tid}/audit?sessionId",
    who: "adminKey",
    path: (w, id) => `/v1/tenants/${w.a.tenantId}/audit?sessionId=${id}`,
    id: (s) => s.sid,
  },
  {
    name: "GET /v1/tenants/{tid}/audit?jobId",
    who: "adminKey",
    path: (w, id) => `/v1/tenants/${w.a.tenantId}/audit?jobId=${id}`,
    id: (s) => s.askJob,
  },
];

for (const f of FILTERS) {
  it(`${f.name}: another tenant's id answers as a missing one`, async () => {
    const id = f.id(w.b);
    const nope = id.replace(/_(\w+)$/, "_nope0000");
    const theirs = await w.t.call("GET", f.path(w, id), { key: w.a[f.who] });
    const missing = await w.t.call("GET", f.path(w, nope), { key: w.a[f.who] });
    // The same answer but for the id itself and the request's own id.
    const same = (body: unknown, own: string) =>
      JSON.stringify({ ...(body as object), requestId: undefined }).replaceAll(own, "<id>");
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(missing.status);
    expect(same(theirs.body, id)).toBe(same(missing.body, nope));
    if (theirs.status === 200) expect(theirs.body.items ?? theirs.body.entries).toEqual([]);
    expect(theirs.status).not.toBe(403);
  });
}
