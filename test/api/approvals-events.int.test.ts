/**
 * `GET /v1/approvals/events` through the real service and Redis: waiting jobs at connect, a new
 * one as it comes (also to another API process, over Redis pub/sub), `resolved` when it leaves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/cli/compose.js";
import { ADMIN_KEY, type Harness, seedTenant, startHarness } from "../support/harness.js";
import { SseReader } from "../support/sse-reader.js";

let h: Harness;
let other: RunningService;
let a: Awaited<ReturnType<typeof seedTenant>>;
let b: Awaited<ReturnType<typeof seedTenant>>;

beforeAll(async () => {
  h = await startHarness({ mode: "api" });
  other = await h.start("api");
  a = await seedTenant(h.call, "a");
  b = await seedTenant(h.call, "b");
  for (const x of [a, b]) {
    await h.call("PUT", `/v1/tenants/${x.tenantId}/rules`, {
      key: x.adminKey,
      body: { allow: [], deny: [], ask: ["Bash(touch:*)"] },
    });
  }
});
afterAll(async () => {
  await h?.stop();
});

async function askCall(key: string, sid: string, file: string) {
  const res = await h.call("POST", `/v1/sessions/${sid}/calls`, {
    key,
    body: { tool: "Bash", input: { command: `touch ${file}` } },
  });
  expect(res.body.job?.status, JSON.stringify(res.body)).toBe("awaiting_approval");
  return res.body.job.id as string;
}

const connect = async (baseUrl: string, key: string, query = "") => {
  const res = await fetch(`${baseUrl}/v1/approvals/events${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  return new SseReader(res);
};

describe("the approvals stream", () => {
  it("sends what waits at connect, each new approval as it comes, and resolved when it leaves", async () => {
    const sid = (await h.call("POST", "/v1/sessions", { key: a.agentKey, body: {} })).body.id;
    const early = await askCall(a.agentKey, sid, "early");

    const here = await connect(h.url, a.adminKey);
    const there = await connect(other.url!, a.adminKey);
    try {
      expect((await here.next()).retry).toBe(3000);
      expect(await here.nextEvent()).toMatchObject({
        event: "approval",
        data: { job: { id: early, status: "awaiting_approval" }, decision: { message: expect.any(String) } },
      });
      expect(await there.nextEvent()).toMatchObject({ event: "approval", data: { job: { id: early } } });

      // Another tenant's approval is not sent; this tenant's next one is, to both API processes.
      const sb = (await h.call("POST", "/v1/sessions", { key: b.agentKey, body: {} })).body.id;
      await askCall(b.agentKey, sb, "theirs");
      const sentAt = performance.now();
      const late = await askCall(a.agentKey, sid, "late");
      const seenHere = await here.nextEvent();
      const hereMs = performance.now() - sentAt;
      const seenThere = await there.nextEvent();
      const thereMs = performance.now() - sentAt;
      expect(seenHere).toMatchObject({
        event: "approval",
        data: { job: { id: late, input: { command: "touch late" } }, expiresAt: expect.any(String) },
      });
      expect(seenThere).toMatchObject({ event: "approval", data: { job: { id: late } } });
      console.log(
        `approval event after submit: ${hereMs.toFixed(0)} ms (same API), ${thereMs.toFixed(0)} ms (other API)`,
      );

      const deny = await h.call("POST", `/v1/jobs/${early}/approval`, {
        key: a.adminKey,
        body: { approve: false },
      });
      expect(deny.status).toBe(200);
      expect(await here.nextEvent()).toEqual({ event: "resolved", data: { jobId: early, status: "denied" } });
      expect(await there.nextEvent()).toEqual({
        event: "resolved",
        data: { jobId: early, status: "denied" },
      });

      await h.call("DELETE", `/v1/sessions/${sid}`, { key: a.agentKey });
      expect(await here.nextEvent()).toEqual({
        event: "resolved",
        data: { jobId: late, status: "cancelled" },
      });
    } finally {
      await here.close();
      await there.close();
    }
  });

  it("is for tenant admins; the platform admin names the tenant", async () => {
    const agent = await fetch(`${h.url}/v1/approvals/events`, {
      headers: { authorization: `Bearer ${a.agentKey}` },
    });
    expect(agent.status).toBe(403);
    const noTenant = await fetch(`${h.url}/v1/approvals/events`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(noTenant.status).toBe(400);
    const body = (await noTenant.json()) as { error: { details: { path: string }[] } };
    expect(body.error.details[0]?.path).toBe("tenantId");
    const cross = await fetch(`${h.url}/v1/approvals/events?tenantId=${b.tenantId}`, {
      headers: { authorization: `Bearer ${a.adminKey}` },
    });
    expect(cross.status).toBe(404);
    const sid = (await h.call("POST", "/v1/sessions", { key: b.agentKey, body: {} })).body.id;
    const waiting = await askCall(b.agentKey, sid, "x");
    const admin = await connect(h.url, ADMIN_KEY, `?tenantId=${b.tenantId}`);
    try {
      // Tenant b also has the first test's "theirs" waiting: both come, oldest first.
      const first = await admin.nextEvent();
      const second = await admin.nextEvent();
      expect(first).toMatchObject({
        event: "approval",
        data: { job: { input: { command: "touch theirs" } } },
      });
      expect(second).toMatchObject({ event: "approval", data: { job: { id: waiting } } });
    } finally {
      await admin.close();
    }
  });
});
