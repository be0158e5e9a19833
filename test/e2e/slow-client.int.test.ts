/**
 * A client that trickles its request cannot hold a connection for long: past
 * HTTP_REQUEST_TIMEOUT_MS the server answers 408 and closes it. A response's own wait (`?wait`)
 * is not the client's sending and is not cut.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_KEY, type Harness, seedBashTenant, startHarness } from "../support/harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mode: "api", env: { HTTP_REQUEST_TIMEOUT_MS: "1500" } });
});
afterAll(async () => {
  await h?.stop();
});

it("a request still arriving after the timeout is answered 408 and its connection closed", async () => {
  const { hostname, port } = new URL(h.url);
  const sock = connect(Number(port), hostname);
  let received = "";
  sock.setEncoding("utf8");
  sock.on("data", (d: string) => (received += d));
  const closed = new Promise<void>((resolve) => sock.once("close", () => resolve()));
  sock.write(
    "POST /v1/tenants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
      `Authorization: Bearer ${ADMIN_KEY}\r\nContent-Length: 100\r\n\r\n{"name":`,
  );
  // Bounded: the server closes it within the timeout and its check interval, or the test fails.
  const gaveUp = new Promise<"open">((r) => setTimeout(() => r("open"), 15_000));
  expect(await Promise.race([closed.then(() => "closed" as const), gaveUp])).toBe("closed");
  expect(received).toMatch(/^HTTP\/1\.1 408/);
  sock.destroy();
}, 30_000);

it("a response that waits longer than the timeout is not cut", async () => {
  const t = await seedBashTenant(h.call, "slow");
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  // No worker in this process: the call stays queued, and the wait runs its full 3 s, twice the
  // request timeout. Were the response's wait counted, the connection would be cut under it and
  // this call would throw instead of answering.
  const r = await h.call("POST", `/v1/sessions/${sid}/calls?wait=3`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "true" } },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  expect(r.body.job.status).toBe("queued");
}, 30_000);
