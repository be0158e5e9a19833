/**
 * An operator stops the service while Redis is away, or just after it came back (its connections
 * still reconnecting): the stop ends and every part of the service stops, down to the database.
 * BullMQ's graceful worker close waits for its blocking connection to end, which a connection
 * between reconnect attempts never does: each worker's stop is bounded, then forced.
 */
// suite: parallel — the Redis it stops is its own (startPrivateRedis, a free port)
import { afterEach, expect, it } from "vitest";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { type PrivateRedis, startPrivateRedis } from "../support/private-redis.js";

let redis: PrivateRedis | undefined;
let h: Harness | undefined;
afterEach(async () => {
  await h?.stop().catch(() => undefined);
  await redis?.kill();
});

/** A serving process on a Redis of its own whose workers have each waited for work. */
async function started(): Promise<Harness> {
  redis = await startPrivateRedis();
  // The bound on BullMQ's own close once nothing runs: 2 s rather than the default 10.
  h = await startHarness({ mode: "serve", env: { REDIS_URL: redis.url, QUEUE_CLOSE_PATIENCE_MS: "2000" } });
  const t = await seedBashTenant(h.call);
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const done = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "true" } },
  });
  expect(done.body.job.status).toBe("succeeded");
  return h;
}

it("stopped while Redis is down: the stop ends, the database last", async () => {
  const svc = await started();
  await redis!.kill();
  await svc.service.stop();
  expect(svc.service.parts.stopped).toContain("worker");
  expect(svc.service.parts.stopped.at(-1)).toBe("database");
  // Back for the harness's own clean-up (its Redis keys).
  await redis!.start();
}, 120_000);

it("stopped just after Redis came back: the stop ends, the database last", async () => {
  const svc = await started();
  await redis!.kill();
  // Long enough that the connections' reconnect attempts are spaced out (ioredis: up to 2 s).
  await new Promise((r) => setTimeout(r, 4000));
  await redis!.start();
  await svc.service.stop();
  expect(svc.service.parts.stopped).toContain("worker");
  expect(svc.service.parts.stopped.at(-1)).toBe("database");
}, 120_000);
