/**
 * Real Redis and BullMQ; the sandbox provider always answers "unavailable" (that failure is the
 * subject here, so no container is involved): the job is retried with backoff, then fails with
 * a clear message, and the session's next job is not blocked by it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: { SANDBOX_RETRY_ATTEMPTS: "3", SANDBOX_RETRY_BACKOFF_MS: "50" },
    start: { sandboxes: new NullSandboxProvider() },
  });
});
afterAll(async () => {
  await h?.stop();
});

it("retries an unavailable sandbox with backoff, then fails clearly; later jobs still run", async () => {
  const t = await seedBashTenant(h.call);
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const first = await h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "echo 1" } },
  });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  expect(first.body.job.status).toBe("failed");
  expect(first.body.job.result.content[0].text).toBe(
    "Error: the session's sandbox is unavailable (no sandboxes in API-shape tests): the call did not run. Retry it once the service reports ready (GET /readyz).",
  );
  const metrics = await h.call("GET", "/metrics");
  expect(metrics.body).toContain("toolshed_sandbox_retries_total 3");
  const second = await h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "echo 2" } },
  });
  expect(second.body.job.status).toBe("failed");
});
