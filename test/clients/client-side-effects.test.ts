/**
 * The TypeScript client's retries against the real API (in-process, no worker): an answer the
 * client sends again must be one after which the API did nothing. A file transfer that waited
 * for a worker in vain has made its job (it runs once, later): sending it again made a second.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Toolshed } from "../../clients/typescript/src/index.js";
import { jobs } from "../../src/db/schema.js";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
afterEach(() => t?.close());

async function setUp() {
  t = await createApiTestApp(new NullSandboxProvider());
  const a = await seedTenant(t.call);
  await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, {
    key: a.adminKey,
    body: { allow: ["Write", "Read"], deny: [], ask: [] },
  });
  const fetch = ((url: string, init?: RequestInit) => t.app.request(url, init)) as typeof globalThis.fetch;
  // Retry-After waits at most 5 ms here: the count of requests is the policy's, not the clock's.
  const agent = new Toolshed({ baseUrl: "http://api.test", apiKey: a.agentKey, fetch, maxRetryDelay: 0.005 });
  const session = await agent.sessions.create();
  return { session };
}

describe("client retries against the API", () => {
  it("a transfer still pending is not sent again: one job, and the error names it", async () => {
    const { session } = await setUp();
    for (const send of [
      () => session.files.put("/workspace/a.txt", "one"),
      () => session.files.get("/workspace/a.txt"),
    ]) {
      const before = t.deps.db.select().from(jobs).all().length;
      const err = (await send().catch((e: unknown) => e)) as {
        status: number;
        code: string;
        details: unknown[];
      };
      const made = t.deps.db.select().from(jobs).all().slice(before);
      expect(made).toHaveLength(1);
      expect(err).toMatchObject({ code: "TRANSFER_PENDING", status: 504 });
      expect(err.details).toEqual([{ path: "job", message: made[0]!.id }]);
    }
  });
});
