/**
 * The Docker engine unreachable (a provider whose engine socket does not exist; the shared
 * engine is left alone): submit answers 503 UNAVAILABLE with Retry-After and creates nothing,
 * and /readyz names the docker check, through the real service and its Docker adapter. A process
 * that runs sandboxes (serve) checks its engine; an API-only process talks to no Docker engine.
 */
import { join } from "node:path";
import Dockerode from "dockerode";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DockerSandboxProvider } from "../../src/sandbox/docker-provider.js";
import { type Harness, seedBashTenant, startHarness } from "../support/harness.js";

let h: Harness;
let provider: DockerSandboxProvider;

beforeAll(async () => {
  h = await startHarness({ mode: "api" });
  provider = new DockerSandboxProvider({
    dataDir: join(h.config.DATA_DIR, "sb-down"),
    serviceId: h.config.SERVICE_ID,
    image: h.config.SANDBOX_IMAGE,
    limits: { memoryBytes: 256 * 1024 * 1024, pids: 64, nanoCpus: 1e9 },
    idleStopMs: 60_000,
    docker: new Dockerode({ socketPath: join(h.config.DATA_DIR, "no-docker.sock") }),
  });
});
afterAll(async () => {
  await provider?.close();
  await h?.stop();
});

it("with the engine unreachable, submit is 503 UNAVAILABLE and /readyz names docker", async () => {
  const api = await h.start("serve", { sandboxes: provider });
  const call = async (method: string, path: string, key?: string, body?: unknown) => {
    const res = await fetch(api.url + path, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: tests assert on JSON bodies freely
    const json: any = await res.json();
    return { status: res.status, headers: res.headers, body: json };
  };
  const t = await seedBashTenant(h.call);
  const sid = (await call("POST", "/v1/sessions", t.agentKey, {})).body.id as string;

  const res = await call("POST", `/v1/sessions/${sid}/calls`, t.agentKey, {
    tool: "Bash",
    input: { command: "echo hi" },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(res.body.error).toMatchObject({
    code: "UNAVAILABLE",
    message: expect.stringContaining("Docker engine"),
  });
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  const audit = await call("GET", `/v1/tenants/${t.tenantId}/audit?sessionId=${sid}`, t.adminKey);
  expect(audit.body.entries).toEqual([]);

  const ready = await call("GET", "/readyz");
  expect(ready.status).toBe(503);
  expect(ready.body.checks).toEqual({
    redis: { ok: true },
    docker: { ok: false, error: "unreachable" },
    database: { ok: true },
  });
  // The harness's own API, on the real engine, is ready.
  expect((await h.call("GET", "/readyz")).body).toMatchObject({ ready: true });
});
