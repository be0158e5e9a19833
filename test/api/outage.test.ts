/**
 * Submit during an outage (in-process; the live Redis outage is test/e2e/redis-outage.int.test.ts):
 * a dependency that does not answer is a 503 UNAVAILABLE with Retry-After, and nothing is left
 * behind — no job row, no audit entry, nothing queued. `/readyz` names the failed check.
 */
import { afterEach, describe, expect, it } from "vitest";
import { audit, jobs } from "../../src/db/schema.js";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

/** A sandbox provider whose engine is down (or up, once `down` is false). */
class EngineSandboxProvider extends NullSandboxProvider {
  down = true;
  async ping(): Promise<void> {
    if (this.down) throw new Error("connect ENOENT /var/run/docker.sock");
  }
}

let t: Awaited<ReturnType<typeof createApiTestApp>>;
afterEach(() => t?.close());

async function setUp(engine = new EngineSandboxProvider()) {
  t = await createApiTestApp(engine);
  const a = await seedTenant(t.call);
  await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, {
    key: a.adminKey,
    body: { allow: ["Read"], deny: [], ask: [] },
  });
  engine.down = false;
  const sid = (await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} })).body.id as string;
  const submit = (file = "/workspace/a") =>
    t.call("POST", `/v1/sessions/${sid}/calls`, {
      key: a.agentKey,
      body: { tool: "Read", input: { file_path: file } },
    });
  const counts = () => ({
    jobs: t.deps.db.select().from(jobs).all().length,
    audit: t.deps.db.select().from(audit).all().length,
    enqueued: t.bus.enqueued.length,
  });
  return { engine, submit, counts };
}

describe("submit during an outage", () => {
  it("the Docker engine down: 503 UNAVAILABLE with Retry-After, nothing created; back up: accepted", async () => {
    const { engine, submit, counts } = await setUp();
    const before = counts();
    engine.down = true;
    const res = await submit();
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error).toMatchObject({ code: "UNAVAILABLE", message: expect.stringContaining("Docker") });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(counts()).toEqual(before);
    engine.down = false;
    expect((await submit()).status).toBe(202);
  });

  it("the queue refusing the job: the row and its audit entry are withdrawn, 503 with Retry-After", async () => {
    const { submit, counts } = await setUp();
    const before = counts();
    const enqueue = t.bus.enqueue.bind(t.bus);
    t.bus.enqueue = async () => {
      throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
    };
    const res = await submit();
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error.code).toBe("UNAVAILABLE");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(counts()).toEqual(before);
    t.bus.enqueue = enqueue;
    expect((await submit()).status).toBe(202);
    expect(counts().jobs).toBe(before.jobs + 1);
  });

  it("the queue refusing and the withdrawal failing too: 202 with the stored job (recovery queues it), not a 503", async () => {
    // A 503 promises that nothing was made, and the client sends it again: the stored job would
    // run once from the reconciler and once more from the retry.
    const { submit, counts } = await setUp();
    const before = counts();
    t.bus.enqueue = async () => {
      throw new Error("Command timed out");
    };
    t.deps.store.withdrawQueued = async () => {
      throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    };
    const res = await submit();
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.job.status).toBe("queued");
    expect(counts().jobs).toBe(before.jobs + 1);
  });

  it("a job a worker already claimed when the enqueue failed is answered as usual", async () => {
    const { submit } = await setUp();
    t.bus.enqueue = async (jobId: string) => {
      // The add reached Redis and a worker claimed the row before the error came back.
      t.deps.db.update(jobs).set({ status: "running" }).run();
      throw new Error(`Command timed out (${jobId})`);
    };
    const res = await submit();
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(t.deps.db.select().from(jobs).all()).toHaveLength(1);
  });

  it("the database lost just after the job was stored: 202 with the job (recovery queues it), not a 503", async () => {
    const { submit, counts } = await setUp();
    const before = counts();
    const findJob = t.deps.store.findJob.bind(t.deps.store);
    t.deps.store.findJob = async () => {
      throw Object.assign(new Error("the database is unreachable: connect ECONNREFUSED"), {
        name: "DatabaseUnreachableError",
      });
    };
    const res = await submit();
    t.deps.store.findJob = findJob;
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.job.status).toBe("queued");
    expect(counts().jobs).toBe(before.jobs + 1);
    expect((await findJob(res.body.job.id))?.status).toBe("queued");
  });
});

describe("/healthz and /readyz", () => {
  it("/healthz is liveness only; /readyz is 503 naming the failed check, then 200", async () => {
    const { engine } = await setUp();
    engine.down = true;
    expect((await t.call("GET", "/healthz")).body).toEqual({ ok: true });
    const down = await t.call("GET", "/readyz");
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      ready: false,
      checks: { docker: { ok: false, error: "unreachable" }, database: { ok: true } },
      error: { code: "UNAVAILABLE", details: [{ path: "checks.docker" }] },
    });
    expect(JSON.stringify(down.body)).not.toContain("docker.sock");
    engine.down = false;
    const up = await t.call("GET", "/readyz");
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ ready: true, checks: { docker: { ok: true }, database: { ok: true } } });
  });
});
