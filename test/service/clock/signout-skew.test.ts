/**
 * A console sign-out must hold on every host until the cookie has expired on every host. Two
 * `ConsoleSessions` on one database stand for two API hosts, one with its clock 10 minutes ahead:
 * the host ahead, forgetting "expired" sign-outs by its own clock, must not bring a signed-out
 * cookie back to life on the host on time, nor may a retention pass by the database's clock.
 */
import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { dbNow } from "../../../src/db/db-clock.js";
import { prunePass, retentionSettings } from "../../../src/service/retention/pruner.js";
import { ConsoleSessions } from "../../../src/service/tenancy/console-sessions.js";
import { createApiTestApp, seedTenant } from "../../support/harness.js";
import { NullSandboxProvider } from "../../support/null-sandbox.js";

const MIN = 60_000;
let t: Awaited<ReturnType<typeof createApiTestApp>>;
let key: string;

beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  key = (await seedTenant(t.call)).adminKey;
});
afterEach(() => t.close());

/** Host `onTime` and host `ahead`, one secret, cookies of 5 minutes. */
function hosts() {
  const secret = randomBytes(32);
  return {
    onTime: new ConsoleSessions(t.deps.db, secret, 5 * MIN),
    ahead: new ConsoleSessions(t.deps.db, secret, 5 * MIN, () => Date.now() + 10 * MIN),
  };
}

it("a host ahead signing another session out does not revive a signed-out cookie elsewhere", async () => {
  const { onTime, ahead } = hosts();
  const session = await onTime.signIn(key);
  await onTime.signOut(session);
  // The host ahead signs out a session of its own: it forgets the sign-outs past expiry by its clock.
  await ahead.signOut(await ahead.signIn(key));
  await expect(onTime.resume(session.token)).rejects.toThrow(/signed out/);
});

it("a retention pass keeps a sign-out while a host behind the database could still take its cookie", async () => {
  const { onTime } = hosts();
  const session = await onTime.signIn(key);
  await onTime.signOut(session);
  // The database's clock 10 minutes ahead of this host: the cookie is expired there, not here.
  const later = new Date((await dbNow(t.deps.db)).getTime() + 10 * MIN);
  await prunePass(t.deps.db, { ...retentionSettings(loadConfig({})), pauseMs: 0 }, later);
  await expect(onTime.resume(session.token)).rejects.toThrow(/signed out/);
});
