/**
 * `GET /v1/jobs/{jid}/events`: resuming past the end still yields the stored result; revoking
 * a key ends the streams it opened (SSE and session MCP).
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { apiKeys } from "../../src/db/schema.js";
import { seedTenant } from "../support/harness.js";
import { newTenantCase, type TenantCase } from "./tenancy-fixture.js";

let t: TenantCase["t"];
let a: TenantCase["a"];
let sid: string;

beforeEach(async () => {
  ({ t, a, sid } = await newTenantCase({ deny: ["Bash(rm:*)"], ask: ["Bash(touch:*)"] }));
});
afterEach(() => t.close());

const submit = (command: string) =>
  t.call("POST", `/v1/sessions/${sid}/calls`, {
    key: a.agentKey,
    body: { tool: "Bash", input: { command } },
  });
const events = (jid: string, lastEventId?: string) =>
  t.app.request(`/v1/jobs/${jid}/events`, {
    headers: {
      authorization: `Bearer ${a.agentKey}`,
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
    },
  });

/** `[{event, id, data}]` of an SSE text. */
function parseSse(text: string) {
  return text
    .split("\n\n")
    .filter((block) => block.includes("event:"))
    .map((block) => ({
      event: /event: (.*)/.exec(block)?.[1],
      id: /id: (.*)/.exec(block)?.[1],
      data: JSON.parse(/data: (.*)/.exec(block)?.[1] ?? "null"),
    }));
}

describe("Last-Event-ID past the end", () => {
  it("a finished job's stream resumed at or past its last event sends the stored result again", async () => {
    const jid = (await submit("rm z")).body.job.id;
    const full = parseSse(await (await events(jid)).text());
    const last = full.at(-1)!;
    expect(last.event).toBe("result");
    for (const id of [last.id!, "final", "final-status", "99999999999999-0", "999999999999999999999999-7"]) {
      const res = await events(jid, id);
      expect(res.status, id).toBe(200);
      const resumed = parseSse(await res.text());
      expect(
        resumed.map((e) => e.event),
        id,
      ).toEqual(["result"]);
      expect(resumed[0]!.data).toMatchObject({ status: "denied", result: { state: "denied" } });
    }
  });

  it("a pending job resumed past the end gets its result when it finishes", async () => {
    const jid = (await submit("touch y")).body.job.id;
    const res = await events(jid, "99999999999999-0");
    expect(res.status).toBe(200);
    const text = res.text();
    const answered = await t.call("POST", `/v1/jobs/${jid}/approval`, {
      key: a.adminKey,
      body: { approve: false },
    });
    expect(answered.body.job.status).toBe("denied");
    expect(parseSse(await text).map((e) => [e.event, e.data.status])).toEqual([["result", "denied"]]);
  });

  it("an id that is no event id is a 400 naming the header", async () => {
    const jid = (await submit("rm z")).body.job.id;
    for (const id of ["nope", "1-", "-1", "1-2-3"]) {
      const res = await events(jid, id);
      expect(res.status, id).toBe(400);
      expect(((await res.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe(
        "Last-Event-ID",
      );
    }
  });
});

describe("a stream closed by the stored final row (its events expired)", () => {
  /** Drops the job's events, as their expiry in Redis does. */
  const expire = (jid: string) => (t.bus as unknown as { logs: Map<string, unknown> }).logs.delete(jid);

  it("a new follower gets the terminal status (final-status) then the result; a resume from either gets the result alone", async () => {
    const jid = (await submit("rm z")).body.job.id;
    expect(expire(jid)).toBe(true);
    const fresh = parseSse(await (await events(jid)).text());
    expect(fresh.map((e) => [e.event, e.id, e.data.status])).toEqual([
      ["status", "final-status", "denied"],
      ["result", "final", "denied"],
    ]);
    for (const id of ["final-status", "final", "1-0"]) {
      const resumed = parseSse(await (await events(jid, id)).text());
      expect(
        resumed.map((e) => [e.event, e.id]),
        id,
      ).toEqual([["result", "final"]]);
    }
  });

  it("another tenant's job is a 404 whatever Last-Event-ID it sends (no 400 telling it exists)", async () => {
    const jid = (await submit("rm z")).body.job.id;
    const other = await seedTenant(t.call, "other");
    for (const id of [undefined, "final-status", "final", "nope"]) {
      const res = await t.app.request(`/v1/jobs/${jid}/events`, {
        headers: { authorization: `Bearer ${other.agentKey}`, ...(id ? { "last-event-id": id } : {}) },
      });
      expect(res.status, String(id)).toBe(404);
    }
  });
});

describe("revoking a key ends the streams it opened", () => {
  const spareAgent = async () => {
    const k = await t.call("POST", `/v1/tenants/${a.tenantId}/keys`, {
      key: a.adminKey,
      body: { role: "agent" },
    });
    return { id: k.body.id as string, key: k.body.key as string };
  };
  const openStream = (jid: string, key: string) =>
    t.app.request(`/v1/jobs/${jid}/events`, { headers: { authorization: `Bearer ${key}` } });

  it("an SSE stream ends with an error event when its key is revoked here", async () => {
    const jid = (await submit("touch y")).body.job.id;
    const spare = await spareAgent();
    const res = await openStream(jid, spare.key);
    expect(res.status).toBe(200);
    const other = (await openStream(jid, a.agentKey)).text();
    const text = res.text();
    expect((await t.call("DELETE", `/v1/keys/${spare.id}`, { key: a.adminKey })).status).toBe(204);
    const events = parseSse(await text);
    expect(events.at(-1)).toMatchObject({ event: "error", data: { error: { code: "UNAUTHENTICATED" } } });
    expect(events.some((e) => e.event === "result")).toBe(false);
    // Another key's stream went on: it still gets the result when the job finishes.
    await t.call("POST", `/v1/jobs/${jid}/approval`, { key: a.adminKey, body: { approve: false } });
    expect(parseSse(await other).at(-1)).toMatchObject({ event: "result", data: { status: "denied" } });
    expect((await openStream(jid, spare.key)).status).toBe(401);
  });

  it("a revocation made by another process ends the stream at the next check", async () => {
    const jid = (await submit("touch y")).body.job.id;
    const spare = await spareAgent();
    const res = await openStream(jid, spare.key);
    const text = res.text();
    // Another API process wrote the revocation: nothing here was told.
    t.deps.db
      .update(apiKeys)
      .set({ revokedAt: new Date().toISOString() })
      .where(eq(apiKeys.id, spare.id))
      .run();
    expect(parseSse(await text).at(-1)?.event).toBe("error");
  });

  it("a stateful session MCP stream closes when its key is revoked", async () => {
    const spare = await spareAgent();
    const headers = {
      authorization: `Bearer ${spare.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const init = await t.app.request(`/v1/sessions/${sid}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    expect(init.status).toBe(200);
    await init.body?.cancel();
    const mcpSession = init.headers.get("mcp-session-id")!;
    const mcpHeaders = { ...headers, "mcp-session-id": mcpSession, "mcp-protocol-version": "2025-06-18" };
    await t.app.request(`/v1/sessions/${sid}/mcp`, {
      method: "POST",
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    const stream = await t.app.request(`/v1/sessions/${sid}/mcp`, {
      method: "GET",
      headers: { ...mcpHeaders, accept: "text/event-stream" },
    });
    expect(stream.status).toBe(200);
    const ended = stream.text();
    expect((await t.call("DELETE", `/v1/keys/${spare.id}`, { key: a.adminKey })).status).toBe(204);
    await ended;
    const again = await t.app.request(`/v1/sessions/${sid}/mcp`, {
      method: "GET",
      headers: { ...mcpHeaders, accept: "text/event-stream", authorization: `Bearer ${a.agentKey}` },
    });
    expect(again.status).toBe(404);
  });
});
