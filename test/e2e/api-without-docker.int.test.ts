/**
 * `toolshed api` talks to no Docker engine: its DOCKER_HOST points nowhere, yet a stdio MCP
 * server's tools are listed (the session's worker lists them inside the session's sandbox and
 * answers over Redis), its calls run, and deleting the session removes the container (through the
 * worker too). The failure was the API starting the session's container itself.
 */
// suite: parallel — its API's DOCKER_HOST points nowhere; the shared engine is left alone
import { afterAll, beforeAll, expect, it } from "vitest";
import { serviceContainers } from "../sandbox/harness.js";
import type { ChildService } from "../support/child-service.js";
import { apiWithChildWorkers } from "../support/child-workers.js";
import { type Client, httpClient, seedTenant } from "../support/harness.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

const f = apiWithChildWorkers();
let api: ChildService;
let call: Client;

beforeAll(async () => {
  await f.spawn("worker");
  // Any Docker request from this API would fail: there is no engine at this socket.
  api = await f.spawn("api", { DOCKER_HOST: "unix:///nonexistent/docker.sock" });
  call = httpClient(api.url);
}, 60_000);
afterAll(async () => api?.stop());

it("lists a stdio server's tools through the session's worker, runs them, and deletes the sandbox", async () => {
  const t = await seedTenant(call);
  const reg = await call("POST", `/v1/tenants/${t.tenantId}/mcp-servers`, {
    key: t.adminKey,
    body: {
      name: "everything",
      transport: "stdio",
      command: "node",
      args: ["/opt/mcp/everything.mjs", "stdio"],
      enableTools: ["echo"],
    },
  });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  const sid = (await call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const tools = await call("GET", `/v1/sessions/${sid}/tools`, { key: t.agentKey });
  expect(tools.status, JSON.stringify(tools.body)).toBe(200);
  const names = (tools.body.tools as { name: string }[]).map((x) => x.name);
  expect(names).toContain("mcp__everything__echo");
  // The listing placed the session on the worker's host.
  const view = (await call("GET", `/v1/sessions/${sid}`, { key: t.agentKey })).body;
  expect(view.hostId).toMatch(/^h-/);

  const sub = await call("POST", `/v1/sessions/${sid}/calls`, {
    key: t.agentKey,
    body: { tool: "mcp__everything__echo", input: { message: "via the worker" } },
  });
  expect(sub.status, JSON.stringify(sub.body)).toBe(202);
  const job = await waitForJob(call, t.agentKey, sub.body.job.id, { timeoutMs: 60_000 });
  expect(job.status, JSON.stringify(job)).toBe("succeeded");
  expect(job.result.content[0].text).toBe("Echo: via the worker");

  expect(await serviceContainers(f.h.config.SERVICE_ID, sid)).toHaveLength(1);
  expect((await call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey })).status).toBe(204);
  await pollUntil(
    () => serviceContainers(f.h.config.SERVICE_ID, sid),
    (list) => list.length === 0,
    { timeoutMs: 30_000, what: "the worker to remove the deleted session's container" },
  );
  expect(api.lines.join("\n")).not.toMatch(/nonexistent\/docker\.sock/);
}, 120_000);
