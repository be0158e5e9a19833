/**
 * Boots Toolshed in-process for tests. `startHarness` runs the real service (HTTP on a random
 * loopback port, real Redis with a unique prefix, real worker and Docker sandboxes) in a temp
 * DATA_DIR, on SQLite there or, with TOOLSHED_TEST_DB=pg, on a fresh Postgres database that
 * every process of the harness shares (test/support/postgres.ts); `createApiTestApp` builds only
 * the Hono app on real SQLite with in-memory queue and events, for API-shape tests that never
 * run a tool.
 */

import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { createApp } from "../../src/api/app.js";
import {
  dockerProvider,
  type RunningService,
  type ServeMode,
  type StartOptions,
  startService,
} from "../../src/cli/compose.js";
import { type Config, loadConfig } from "../../src/config.js";
import { DbReadCache } from "../../src/db/stores/read-cache-store.js";
import { SqliteJobStore } from "../../src/db/stores/sqlite-job-store.js";
import { createLogger } from "../../src/log.js";
import { SessionMcpEndpoint } from "../../src/mcp-server/session-server.js";
import { EgressPolicy } from "../../src/net/egress-policy.js";
import type { SandboxProvider } from "../../src/sandbox/sandbox.js";
import { createApiPort } from "../../src/service/api-port.js";
import type { HostClock } from "../../src/service/clock.js";
import { Metrics } from "../../src/service/metrics.js";
import { type Quotas, type ServiceDeps, toolRegistry } from "../../src/service/ports.js";
import { Readiness } from "../../src/service/readiness.js";
import { SecretBox } from "../../src/service/secret-box.js";
import { createMcpRuntime } from "../../src/service/sessions/mcp-clients.js";
import { ensureAdminKey } from "../../src/service/tenancy/api-keys.js";
import { SkillFiles } from "../../src/service/tool-config/skill-files.js";
import { createBuiltinTools } from "../../src/toolkit/builtins.js";
import { createTaskTools } from "../../src/toolkit/tasks/task-tools.js";
import { MemoryBus } from "./memory-bus.js";
import { MemoryTransfers } from "./memory-transfers.js";
import { testDatabase } from "./postgres.js";
import { openTestDb } from "./test-db.js";

export const ADMIN_KEY = "test-admin-key-0123456789abcdef";

export function testConfig(dataDir: string, extra: Record<string, string> = {}): Config {
  return loadConfig(testEnv(dataDir, extra));
}

/** The environment a test service is configured from (what a child process is given too). */
export function testEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: "0",
    WORKER_PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    TOOLSHED_ADMIN_KEY: ADMIN_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
    QUEUE_PREFIX: `tst-${randomBytes(4).toString("hex")}`,
    SERVICE_ID: `toolshed-test-${randomBytes(3).toString("hex")}`,
    JOB_LOCK_MS: "3000",
    JOB_STALLED_INTERVAL_MS: "1000",
    ORDER_RECHECK_MS: "200",
    SANDBOX_RETRY_BACKOFF_MS: "200",
    // Warm containers cost every test file two containers; the tests of the pool turn it on.
    SANDBOX_WARM_POOL: "0",
    // Several checkouts share one engine: a test run may name its own build of the image.
    ...(process.env.SANDBOX_IMAGE ? { SANDBOX_IMAGE: process.env.SANDBOX_IMAGE } : {}),
    // A run may turn uid slots on for the whole suite (test/sandbox/harness.ts TEST_UID_SLOTS).
    ...(process.env.SANDBOX_UID_SLOTS ? { SANDBOX_UID_SLOTS: process.env.SANDBOX_UID_SLOTS } : {}),
    ...extra,
  };
}

/** A small HTTP client bound to the harness's base URL. */
export type Client = (
  method: string,
  path: string,
  opts?: { key?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<{
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on JSON bodies freely
  body: any;
  headers: Headers;
}>;

export function httpClient(baseUrl: string): Client {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(baseUrl + path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body, headers: res.headers };
  };
}

export interface Harness {
  config: Config;
  /** The environment `config` was parsed from: hand it to a child process to configure it alike. */
  env: Record<string, string>;
  url: string;
  call: Client;
  service: RunningService;
  /** Starts another process-like instance (e.g. a second worker) on the same database and queue. */
  start(mode: ServeMode, opts?: StartOptions): Promise<RunningService>;
  stop(): Promise<void>;
}

export async function startHarness(
  opts: {
    mode?: ServeMode;
    env?: Record<string, string>;
    start?: StartOptions;
    /** What starts each process-like instance (a test of the harness's own plumbing records them). */
    launch?: typeof startService;
  } = {},
): Promise<Harness> {
  const launch = opts.launch ?? startService;
  // Short path: the sandbox provider puts unix sockets under DATA_DIR.
  const dataDir = mkdtempSync(join(tmpdir(), "tsh-"));
  const database = await testDatabase();
  const env = testEnv(dataDir, { ...database.env, ...opts.env });
  const config = loadConfig(env);
  const extra: RunningService[] = [];
  let service: RunningService;
  try {
    service = await launch(config, opts.mode ?? "serve", opts.start);
  } catch (err) {
    await database.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const url = service.url!;
  return {
    config,
    env,
    url,
    call: httpClient(url),
    service,
    async start(mode, o) {
      const s = await launch({ ...config, PORT: 0 }, mode, o);
      extra.push(s);
      return s;
    },
    async stop() {
      for (const s of extra.reverse()) await s.stop().catch(() => undefined);
      // The service id is this harness's own: every container labelled with it is ours to remove.
      // An API process holds no Docker engine: its child workers' containers are reaped directly.
      const docker =
        opts.mode === "api"
          ? dockerProvider({ ...config, SANDBOX_WARM_POOL: 0 }, createLogger("silent"))
          : undefined;
      await (docker ?? service.deps.sandboxes).reapOrphans(new Set()).catch(() => undefined);
      await docker?.close();
      await service.stop();
      await database.drop();
      await dropRedisKeys(config);
      // A child worker killed outright leaves its mounts (warm pool, volumes) behind.
      unmountUnder(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Lazily unmounts every mount under `dir`, deepest first (root only; a no-op otherwise). */
export function unmountUnder(dir: string): void {
  let info = "";
  try {
    info = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return;
  }
  const points = info
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .filter((p) => p === dir || p.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const p of points) spawnSync("umount", ["-l", p], { stdio: "ignore" });
}

/** Redis is shared: remove this run's queues (hash-tagged prefix), streams and meta keys. */
export async function dropRedisKeys(config: Config): Promise<void> {
  const redis = new Redis(config.REDIS_URL);
  try {
    for (const pattern of [`${config.QUEUE_PREFIX}:*`, `{${config.QUEUE_PREFIX}}:*`]) {
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== "0");
    }
  } finally {
    redis.disconnect();
  }
}

/** Sets up a tenant with an agent key and a tenant-admin key. */
export async function seedTenant(call: Client, name = "acme") {
  const t = await call("POST", "/v1/tenants", { key: ADMIN_KEY, body: { name } });
  const agent = await call("POST", `/v1/tenants/${t.body.id}/keys`, {
    key: ADMIN_KEY,
    body: { role: "agent" },
  });
  const admin = await call("POST", `/v1/tenants/${t.body.id}/keys`, {
    key: ADMIN_KEY,
    body: { role: "tenant_admin" },
  });
  return {
    tenantId: t.body.id as string,
    agentKey: agent.body.key as string,
    adminKey: admin.body.key as string,
  };
}

/** A tenant whose rules allow every Bash call (the fault tests' usual set-up). */
export async function seedBashTenant(call: Client, name?: string) {
  const t = await seedTenant(call, name);
  const put = await call("PUT", `/v1/tenants/${t.tenantId}/rules`, {
    key: t.adminKey,
    body: { allow: ["Bash"], deny: [], ask: [] },
  });
  if (put.status !== 200) throw new Error(`rules not set: ${JSON.stringify(put.body)}`);
  return t;
}

/** The Hono app over real SQLite with in-memory queue/events and the given sandbox provider. */
export async function createApiTestApp(
  sandboxes: SandboxProvider,
  quotas: Partial<Quotas> = {},
  opts: { mcp?: boolean; publicOrigin?: string; hostClock?: HostClock } = {},
) {
  const dataDir = mkdtempSync(join(tmpdir(), "tsa-"));
  const { db, ping, close } = openTestDb(join(dataDir, "t.db"));
  await ensureAdminKey({ db }, ADMIN_KEY);
  const bus = new MemoryBus();
  const deps: ServiceDeps = {
    db,
    store: new SqliteJobStore(db),
    tools: toolRegistry([...createBuiltinTools(), ...createTaskTools()]),
    queue: bus,
    events: bus,
    cancels: bus,
    sandboxes,
    readCache: new DbReadCache(db),
    skillFiles: new SkillFiles(join(dataDir, "skill-cache"), db),
    // No worker runs here: a transfer answers 504 TRANSFER_PENDING naming its job after a short wait.
    transfers: new MemoryTransfers(1024 * 1024, 200),
    metrics: new Metrics(),
    logger: createLogger("silent"),
    limiter: bus,
    quotas: { maxSessions: 1000, callsPerMinute: 1000, ...quotas },
    mcp: opts.mcp
      ? createMcpRuntime({ db, logger: createLogger("silent"), dataDir, egress: new EgressPolicy() })
      : undefined,
    secrets: SecretBox.fromKey(randomBytes(32)),
    sandboxPolicy: {
      defaultImage: "toolshed-sandbox:latest",
      imageAllowlist: ["toolshed-sandbox:alt"],
      caps: { memoryMb: 2048, cpus: 2, pids: 512, diskMb: 2048 },
    },
    readiness: new Readiness(
      { database: ping, ...(sandboxes.ping ? { docker: () => sandboxes.ping?.() } : {}) },
      { timeoutMs: 1000, cacheMs: 0 },
    ),
    hostClock: opts.hostClock,
  };
  const port = createApiPort(deps);
  const sessionMcp = new SessionMcpEndpoint(port.sessionMcp, deps.logger, { keyStreams: port.keyStreams });
  const app = createApp({
    port,
    sessionMcp,
    bodyLimitBytes: 64 * 1024,
    logger: deps.logger,
    publicOrigin: opts.publicOrigin,
  });
  const call: Client = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await app.request(path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body, headers: res.headers };
  };
  return {
    app,
    deps,
    bus,
    call,
    close() {
      void sessionMcp.close();
      port.keyStreams.close();
      close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
