/**
 * One delivery attempt against the egress policy at connect time: a stored URL the policy refuses
 * (the policy changed since, or a name now resolving to a refused address) is not contacted, ends
 * `failed` at once with the refusal as its error, and is not retried.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tenants, webhookDeliveries, webhooks } from "../../src/db/schema.js";
import { createLogger } from "../../src/log.js";
import { egressClient } from "../../src/net/egress-fetch.js";
import { EgressPolicy } from "../../src/net/egress-policy.js";
import { SecretBox } from "../../src/service/secret-box.js";
import { deliverWebhook } from "../../src/service/webhooks/deliver.js";
import { webhookSecretContext } from "../../src/service/webhooks/webhook-events.js";
import { openTestDb } from "../support/test-db.js";

const dir = mkdtempSync(join(tmpdir(), "tsw-"));
const { db, close } = openTestDb(join(dir, "t.db"));
afterAll(() => {
  close();
  rmSync(dir, { recursive: true, force: true });
});

describe("deliverWebhook", () => {
  it("does not connect to an address the egress policy refuses, and does not retry", async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end("ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const addr = server.address();
    const url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}/hook`;
    const secrets = SecretBox.fromDataDir(dir);
    // The strict policy: loopback is not allowed.
    const egress = new EgressPolicy();
    const http = egressClient(egress);
    const now = new Date().toISOString();
    db.insert(tenants).values({ id: "ten_w", name: "w", createdAt: now }).run();
    db.insert(webhooks)
      .values({
        tenantId: "ten_w",
        url,
        events: ["job.finished"],
        secretEnc: secrets.seal("whsec_x", webhookSecretContext("ten_w")),
        createdAt: now,
        updatedAt: now,
      })
      .run();
    const delivery = {
      id: "whd_1",
      tenantId: "ten_w",
      event: "job.finished",
      jobId: "job_1",
      body: "{}",
      url,
      status: "pending" as const,
      createdAt: now,
    };
    db.insert(webhookDeliveries).values(delivery).run();
    try {
      const deps = {
        db,
        logger: createLogger("silent"),
        webhooks: { queue: { enqueue: async () => {} }, secrets, egress, http, timeoutMs: 2000 },
      };
      const outcome = await deliverWebhook(deps, "whd_1", { last: false });
      expect(outcome).toBe("failed");
      const row = db.select().from(webhookDeliveries).all()[0];
      expect(row).toMatchObject({ status: "failed", attempts: 1, responseCode: null });
      expect(row?.lastError).toContain("egress refused");
      expect(hits).toBe(0);
      // A delivery that is no longer pending is left alone.
      expect(await deliverWebhook(deps, "whd_1", { last: false })).toBe("skipped");
    } finally {
      http.close();
      server.close();
    }
  });
});
