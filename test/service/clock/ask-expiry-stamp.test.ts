/**
 * A call that waits for a human, submitted on a host whose clock is 10 minutes ahead (an injected
 * `hostClock`): its expiry is the tenant's TTL after the database's clock, as every host judges
 * it, not after the host's (which would give it 10 minutes more). The API's fields stay as they
 * were: `approvalExpiresAt - createdAt` is the TTL.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createApiTestApp, seedTenant } from "../../support/harness.js";
import { NullSandboxProvider } from "../../support/null-sandbox.js";

const TTL_MS = 3600_000;
const SKEW_MS = 600_000;
let t: Awaited<ReturnType<typeof createApiTestApp>>;

beforeEach(async () => {
  t = await createApiTestApp(
    new NullSandboxProvider(),
    {},
    { hostClock: () => new Date(Date.now() + SKEW_MS) },
  );
});
afterEach(() => t.close());

it("an ask call's expiry is the TTL after the database's now, not after a host clock ahead", async () => {
  const a = await seedTenant(t.call);
  const sid = (await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} })).body.id;
  const res = await t.call("POST", `/v1/sessions/${sid}/calls`, {
    key: a.agentKey,
    body: { tool: "Bash", input: { command: "npm test" } },
  });
  const job = res.body.job;
  expect(job.status).toBe("awaiting_approval");
  // Read after the answer: the database's now was earlier, the host's clock is 10 minutes later.
  expect(Date.parse(job.approvalExpiresAt)).toBeLessThanOrEqual(Date.now() + TTL_MS);
  expect(Date.parse(job.approvalExpiresAt) - Date.parse(job.createdAt)).toBe(TTL_MS);
});
