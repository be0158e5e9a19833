/**
 * Tenant webhooks through the real service, queue and a real receiver on loopback: signed
 * deliveries the receiver verifies, retries with backoff after failures, the delivery log, and
 * URLs the egress policy refuses (loopback is allowed here explicitly, as an operator would).
 */
// suite: parallel — [::1]:8080 is an address refused as a webhook target, nothing listens on it
import { spawnSync } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../clients/typescript/src/index.js";
import { tablesOf } from "../../src/db/db.js";
import { sweepExpiredApprovals } from "../../src/service/calls/approval-expiry.js";
import { reconcileDeliveries } from "../../src/service/webhooks/reconcile-deliveries.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";
import { pollUntil } from "../support/wait-for-job.js";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver that answers `failFirst` 500s, then 200s, and keeps every request. */
async function startReceiver(failFirst = 0) {
  const got: Received[] = [];
  let fails = failFirst;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      got.push({ headers: req.headers, body });
      if (fails > 0) {
        fails--;
        res.writeHead(500).end("try later");
      } else res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Whether the delivery verifies with `secret`, as a receiver checks it (the TypeScript client). */
const verifies = (secret: string, body: string, signature: string) =>
  verifyWebhook({ secret, body, signature }).then(
    () => true,
    () => false,
  );

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: {
      EGRESS_ALLOW: "127.0.0.1/32",
      WEBHOOK_BACKOFF_MS: "100",
      WEBHOOK_ATTEMPTS: "5",
      WEBHOOK_RECONCILE_INTERVAL_MS: "300",
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

async function tenantWithAsk(name: string) {
  const t = await seedTenant(h.call, name);
  await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, {
    key: t.adminKey,
    body: { allow: [], deny: [], ask: ["Bash(touch:*)"] },
  });
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const ask = async (file: string) => {
    const res = await h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: t.agentKey,
      body: { tool: "Bash", input: { command: `touch ${file}` } },
    });
    expect(res.body.job?.status, JSON.stringify(res.body)).toBe("awaiting_approval");
    return res.body.job.id as string;
  };
  return { ...t, sid, ask };
}

const deliveries = async (t: { tenantId: string; adminKey: string }, q = "") =>
  (await h.call("GET", `/v1/tenants/${t.tenantId}/webhooks/deliveries${q}`, { key: t.adminKey })).body;

describe("webhooks", () => {
  it("signs each delivery; the receiver verifies it; the log shows it delivered", async () => {
    const rx = await startReceiver();
    try {
      const t = await tenantWithAsk("signed");
      const put = await h.call("PUT", `/v1/tenants/${t.tenantId}/webhooks`, {
        key: t.adminKey,
        body: { url: rx.url, events: ["job.awaiting_approval", "job.finished"] },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const secret = put.body.secret as string;
      expect(secret).toMatch(/^whsec_/);
      const read = await h.call("GET", `/v1/tenants/${t.tenantId}/webhooks`, { key: t.adminKey });
      expect(read.body).toEqual({
        url: rx.url,
        events: ["job.awaiting_approval", "job.finished"],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        previousSecretExpiresAt: null,
      });

      const jid = await t.ask("a");
      await pollUntil(
        () => rx.got.length,
        (n) => n >= 1,
        { timeoutMs: 20_000, what: "the first delivery" },
      );
      const first = rx.got[0] as Received;
      const body = JSON.parse(first.body);
      expect(first.headers["toolshed-event"]).toBe("job.awaiting_approval");
      expect(first.headers["toolshed-delivery"]).toBe(body.id);
      expect(first.headers["content-type"]).toBe("application/json");
      expect(await verifies(secret, first.body, String(first.headers["toolshed-signature"]))).toBe(true);
      expect(await verifies("whsec_wrong", first.body, String(first.headers["toolshed-signature"]))).toBe(
        false,
      );
      expect(String(first.headers["toolshed-signature"])).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/);
      expect(body).toMatchObject({
        event: "job.awaiting_approval",
        tenantId: t.tenantId,
        data: { job: { id: jid, status: "awaiting_approval" }, decision: { message: expect.any(String) } },
      });

      await h.call("POST", `/v1/jobs/${jid}/approval`, { key: t.adminKey, body: { approve: false } });
      await pollUntil(
        () => rx.got.length,
        (n) => n >= 2,
        { timeoutMs: 20_000, what: "job.finished" },
      );
      const second = rx.got[1] as Received;
      expect(second.headers["toolshed-event"]).toBe("job.finished");
      expect(JSON.parse(second.body).data.job).toMatchObject({ id: jid, status: "denied" });
      expect(await verifies(secret, second.body, String(second.headers["toolshed-signature"]))).toBe(true);

      const log = await pollUntil(
        () => deliveries(t),
        (b) => b.items?.length === 2 && b.items.every((d: { status: string }) => d.status === "delivered"),
        { timeoutMs: 20_000, what: "the delivery log" },
      );
      expect(log.items[1]).toMatchObject({
        event: "job.awaiting_approval",
        jobId: jid,
        status: "delivered",
        attempts: 1,
        responseCode: 200,
        lastError: null,
      });
      expect(JSON.stringify(log)).not.toContain(secret);
    } finally {
      await rx.close();
    }
  });

  it("the clients' webhook check accepts a real delivery and refuses a changed body, another secret, an old one", async () => {
    const rx = await startReceiver();
    try {
      const t = await tenantWithAsk("hooks-clients");
      const put = await h.call("PUT", `/v1/tenants/${t.tenantId}/webhooks`, {
        key: t.adminKey,
        body: { url: rx.url, events: ["job.awaiting_approval"] },
      });
      const secret = put.body.secret as string;
      const jid = await t.ask("c");
      await pollUntil(
        () => rx.got.length,
        (n) => n >= 1,
        { timeoutMs: 20_000, what: "the delivery" },
      );
      const got = rx.got[0] as Received;
      const signature = String(got.headers["toolshed-signature"]);
      const t0 = Number(/t=(\d+)/.exec(signature)![1]);
      const cases = [
        { name: "as received", body: got.body, secrets: [secret], now: t0 + 5, code: null },
        {
          name: "rotating",
          body: got.body,
          secrets: ["whsec_new-one-not-yet-used", secret],
          now: t0,
          code: null,
        },
        {
          name: "changed body",
          body: got.body.replace('"awaiting_approval"', '"succeeded"'),
          secrets: [secret],
          now: t0,
          code: "WEBHOOK_SIGNATURE_INVALID",
        },
        {
          name: "other secret",
          body: got.body,
          secrets: ["whsec_wrong"],
          now: t0,
          code: "WEBHOOK_SIGNATURE_INVALID",
        },
        {
          name: "old",
          body: got.body,
          secrets: [secret],
          now: t0 + 301,
          code: "WEBHOOK_TIMESTAMP_OUT_OF_RANGE",
        },
        {
          name: "early",
          body: got.body,
          secrets: [secret],
          now: t0 - 301,
          code: "WEBHOOK_TIMESTAMP_OUT_OF_RANGE",
        },
      ];
      // TypeScript client.
      for (const c of cases) {
        const outcome = await verifyWebhook({ secret: c.secrets, body: c.body, signature, now: c.now }).then(
          (d) => ({ id: d.id, jobId: d.data.job.id, code: null }),
          (e: { code: string }) => ({ code: e.code }),
        );
        expect(outcome, c.name).toEqual(
          c.code ? { code: c.code } : { id: got.headers["toolshed-delivery"], jobId: jid, code: null },
        );
      }
      const unsigned = await verifyWebhook({ secret, body: got.body, signature: undefined }).catch(
        (e) => e.code,
      );
      expect(unsigned).toBe("WEBHOOK_SIGNATURE_INVALID");
      // Python client: the same cases, one process.
      const script = `
import json, sys
from toolshed_client import ToolshedError, verify_webhook
out = []
for c in json.load(sys.stdin)["cases"]:
    try:
        d = verify_webhook(c["secrets"], c["body"].encode("utf-8"), c["signature"], now=c["now"])
        out.append({"id": d["id"], "jobId": d["data"]["job"]["id"], "code": None})
    except ToolshedError as e:
        out.append({"code": e.code})
print(json.dumps(out))
`;
      const py = spawnSync("python3", ["-c", script], {
        input: JSON.stringify({ cases: cases.map((c) => ({ ...c, signature })) }),
        env: { ...process.env, PYTHONPATH: "clients/python" },
        encoding: "utf8",
      });
      expect(py.status, py.stderr).toBe(0);
      expect(JSON.parse(py.stdout)).toEqual(
        cases.map((c) =>
          c.code ? { code: c.code } : { id: got.headers["toolshed-delivery"], jobId: jid, code: null },
        ),
      );
    } finally {
      await rx.close();
    }
  });

  it("after a rotation a delivery is signed with the new and the old secret until the overlap ends", async () => {
    const rx = await startReceiver();
    try {
      const t = await tenantWithAsk("hooks-rotate");
      const path = `/v1/tenants/${t.tenantId}/webhooks`;
      const body = { url: rx.url, events: ["job.awaiting_approval"] };
      const old = (await h.call("PUT", path, { key: t.adminKey, body })).body.secret as string;
      const rotated = await h.call("PUT", path, { key: t.adminKey, body: { ...body, rotateSecret: true } });
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      const fresh = rotated.body.secret as string;
      expect(rotated.body.previousSecretExpiresAt).toEqual(expect.any(String));
      await t.ask("r1");
      await pollUntil(
        () => rx.got.length,
        (n) => n >= 1,
        { timeoutMs: 20_000, what: "the delivery after the rotation" },
      );
      const during = rx.got[0] as Received;
      const header = String(during.headers["toolshed-signature"]);
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      expect(await verifies(fresh, during.body, header)).toBe(true);
      // A receiver not yet switched still verifies it.
      expect((await verifyWebhook({ secret: old, body: during.body, signature: header })).event).toBe(
        "job.awaiting_approval",
      );

      // Rotated again with no overlap (a leak): only the newest secret signs.
      const leaked = await h.call("PUT", path, {
        key: t.adminKey,
        body: { ...body, rotateSecret: true, keepPreviousSecretSeconds: 0 },
      });
      expect(leaked.body.previousSecretExpiresAt).toBeNull();
      await t.ask("r2");
      await pollUntil(
        () => rx.got.length,
        (n) => n >= 2,
        { timeoutMs: 20_000, what: "the delivery after the second rotation" },
      );
      const after = rx.got[1] as Received;
      const header2 = String(after.headers["toolshed-signature"]);
      expect(header2).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(await verifies(leaked.body.secret, after.body, header2)).toBe(true);
      expect(await verifies(fresh, after.body, header2)).toBe(false);
      const bad = await h.call("PUT", path, {
        key: t.adminKey,
        body: { ...body, keepPreviousSecretSeconds: -1 },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details[0].path).toBe("keepPreviousSecretSeconds");
    } finally {
      await rx.close();
    }
  });

  it("retries a receiver that fails twice, with the same delivery id, until it succeeds", async () => {
    const rx = await startReceiver(2);
    try {
      const t = await tenantWithAsk("flaky");
      const secret = "an-admin-chosen-secret-123";
      const put = await h.call("PUT", `/v1/tenants/${t.tenantId}/webhooks`, {
        key: t.adminKey,
        body: { url: rx.url, events: ["job.awaiting_approval"], secret },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body).not.toHaveProperty("secret");
      await t.ask("b");
      await pollUntil(
        () => rx.got.length,
        (n) => n >= 3,
        { timeoutMs: 30_000, what: "three attempts" },
      );
      const ids = rx.got.map((r) => r.headers["toolshed-delivery"]);
      expect(new Set(ids).size).toBe(1);
      for (const r of rx.got)
        expect(await verifies(secret, r.body, String(r.headers["toolshed-signature"]))).toBe(true);
      const log = await pollUntil(
        () => deliveries(t),
        (b) => b.items?.[0]?.status === "delivered",
        { timeoutMs: 20_000, what: "delivered after retries" },
      );
      expect(log.items[0]).toMatchObject({ attempts: 3, responseCode: 200, status: "delivered" });
      expect(rx.got).toHaveLength(3);
    } finally {
      await rx.close();
    }
  });

  it("gives up after the last attempt and logs the last error and code", async () => {
    const rx = await startReceiver(100);
    try {
      const t = await tenantWithAsk("down");
      await h.call("PUT", `/v1/tenants/${t.tenantId}/webhooks`, {
        key: t.adminKey,
        body: { url: rx.url, events: ["job.awaiting_approval"] },
      });
      await t.ask("c");
      const log = await pollUntil(
        () => deliveries(t, "?status=failed"),
        (b) => b.items?.length === 1,
        { timeoutMs: 30_000, what: "a failed delivery" },
      );
      expect(log.items[0]).toMatchObject({
        attempts: 5,
        responseCode: 500,
        lastError: "HTTP 500: try later",
      });
      expect(rx.got).toHaveLength(5);
    } finally {
      await rx.close();
    }
  });

  it("an expired approval sends approval.expired and job.finished", async () => {
    const rx = await startReceiver();
    try {
      const t = await tenantWithAsk("expiry");
      await h.call("PUT", `/v1/tenants/${t.tenantId}/webhooks`, {
        key: t.adminKey,
        body: { url: rx.url, events: ["approval.expired", "job.finished"] },
      });
      const jid = await t.ask("d");
      // The worker's sweep, run now as if its expiry (an hour away) had passed.
      const later = new Date(Date.now() + 2 * 3600 * 1000);
      expect(await sweepExpiredApprovals(h.service.deps, later)).toBeGreaterThanOrEqual(1);
      await pollUntil(
        () => rx.got.length,
        (n) => n >= 2,
        { timeoutMs: 20_000, what: "two deliveries" },
      );
      const events = rx.got.map((r) => r.headers["toolshed-event"]).sort();
      expect(events).toEqual(["approval.expired", "job.finished"]);
      const expired = rx.got.find((r) => r.headers["toolshed-event"] === "approval.expired") as Received;
      expect(JSON.parse(expired.body).data.job).toMatchObject({
        id: jid,
        status: "denied",
        approvedBy: "expiry",
      });
    } finally {
      await rx.close();
    }
  });

  it("a job whose process stopped between its commit and its delivery row gets the delivery from the reconcile, once", async () => {
    const rx = await startReceiver();
    try {
      const t = await tenantWithAsk("reconciled");
      const put = await h.call("PUT", `/v1/tenants/${t.tenantId}/webhooks`, {
        key: t.adminKey,
        body: { url: rx.url, events: ["job.finished"] },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const jid = await t.ask("r");
      const before = await t.ask("s");
      const { db, store } = h.service.deps;
      const { jobs, webhooks } = tablesOf(db);
      const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();
      // What a process that stopped after its commit leaves: the job finished (10 s ago, past the
      // reconcile's settling time), never published, no delivery row. The webhook was saved a
      // minute before; `before` finished before that save: never owed to it.
      await db
        .update(webhooks)
        .set({ updatedAt: ago(60) })
        .where(eq(webhooks.tenantId, t.tenantId));
      const result = { content: [{ type: "text" as const, text: "stopped" }], state: "interrupted" as const };
      for (const [id, s] of [
        [jid, 10],
        [before, 70],
      ] as const) {
        expect(await store.finish(id, "interrupted", result)).toBeDefined();
        await db
          .update(jobs)
          .set({ finishedAt: ago(s) })
          .where(eq(jobs.id, id));
      }
      await pollUntil(
        () => rx.got.length,
        (n) => n >= 1,
        { timeoutMs: 20_000, what: "the reconciled delivery" },
      );
      const got = rx.got[0] as Received;
      expect(got.headers["toolshed-event"]).toBe("job.finished");
      expect(JSON.parse(got.body)).toMatchObject({
        event: "job.finished",
        tenantId: t.tenantId,
        data: { job: { id: jid, status: "interrupted" } },
      });
      // Once: another pass (as every host runs) finds nothing owed, and the log holds one row.
      const webhooksRuntime = h.service.deps.webhooks!;
      const again = await reconcileDeliveries(
        { ...h.service.deps, webhooks: webhooksRuntime },
        { windowMs: 3_600_000, settleMs: 5000, batch: 100 },
      );
      expect(again).toBe(0);
      const log = await pollUntil(
        () => deliveries(t),
        (b) => b.items?.[0]?.status === "delivered",
        { timeoutMs: 20_000, what: "the delivery log" },
      );
      expect(log.items.map((d: { jobId: string }) => d.jobId)).toEqual([jid]);
      expect(rx.got).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it("an external tool's call sends job.awaiting_external, and job.finished once its result is posted", async () => {
    const rx = await startReceiver();
    try {
      const t = await tenantWithAsk("external");
      const tool = {
        name: "lookup",
        description: "Looks a customer up in the client's CRM.",
        inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
        readOnly: true,
      };
      const tools = await h.call("PUT", `/v1/tenants/${t.tenantId}/tools`, { key: t.adminKey, body: [tool] });
      expect(tools.status, JSON.stringify(tools.body)).toBe(200);
      await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, {
        key: t.adminKey,
        body: { allow: ["lookup"], deny: [], ask: [] },
      });
      await h.call("PUT", `/v1/tenants/${t.tenantId}/webhooks`, {
        key: t.adminKey,
        body: { url: rx.url, events: ["job.awaiting_external", "job.finished"] },
      });
      const sub = await h.call("POST", `/v1/sessions/${t.sid}/calls`, {
        key: t.agentKey,
        body: { tool: "lookup", input: { q: "acme" } },
      });
      expect(sub.body.job?.status, JSON.stringify(sub.body)).toBe("awaiting_external");
      await pollUntil(
        () => rx.got.length,
        (n) => n >= 1,
        { timeoutMs: 20_000, what: "job.awaiting_external" },
      );
      expect(rx.got[0]?.headers["toolshed-event"]).toBe("job.awaiting_external");
      await h.call("POST", `/v1/jobs/${sub.body.job.id}/external-result`, {
        key: t.agentKey,
        body: { content: [{ type: "text", text: "found" }] },
      });
      await pollUntil(
        () => rx.got.length,
        (n) => n >= 2,
        { timeoutMs: 20_000, what: "job.finished" },
      );
      expect(rx.got[1]?.headers["toolshed-event"]).toBe("job.finished");
      expect(JSON.parse(rx.got[1]?.body ?? "{}").data.job).toMatchObject({ status: "succeeded" });
    } finally {
      await rx.close();
    }
  });

  it("refuses URLs the egress policy refuses, bad events, other tenants and agents", async () => {
    const t = await tenantWithAsk("checks");
    const other = await seedTenant(h.call, "other");
    const put = (body: unknown, key = t.adminKey, tid = t.tenantId) =>
      h.call("PUT", `/v1/tenants/${tid}/webhooks`, { key, body });
    for (const url of ["http://169.254.169.254/latest", "http://[::1]:8080/hook", "http://10.0.0.5/hook"]) {
      const res = await put({ url });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.error).toMatchObject({ code: "EGRESS_REFUSED", details: [{ path: "url" }] });
    }
    const badEvent = await put({ url: "http://127.0.0.1:9/x", events: ["job.exploded"] });
    expect(badEvent.status).toBe(400);
    expect(badEvent.body.error.details[0].path).toBe("events[0]");
    const ftp = await put({ url: "ftp://127.0.0.1/x" });
    expect(ftp.body.error.details[0].path).toBe("url");
    expect((await put({ url: "http://127.0.0.1:9/x" }, other.adminKey)).status).toBe(404);
    expect((await put({ url: "http://127.0.0.1:9/x" }, t.agentKey)).status).toBe(403);
    expect((await h.call("GET", `/v1/tenants/${t.tenantId}/webhooks`, { key: t.adminKey })).status).toBe(404);
    const bad = await h.call("GET", `/v1/tenants/${t.tenantId}/webhooks/deliveries?status=sent`, {
      key: t.adminKey,
    });
    expect(bad.body.error.details[0].path).toBe("status");
  });
});
