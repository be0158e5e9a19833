/**
 * The composition root: reads the config once, opens the DB (migrations applied), builds the
 * adapters (Redis, BullMQ, Docker sandboxes, tools) and starts the API and/or the worker.
 * SIGINT/SIGTERM stop everything in reverse order.
 */
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { createApp, createSystemApp } from "../api/app.js";
import { type Config, loadConfig } from "../config.js";
import { openDb } from "../db/open.js";
import { SqliteReadCache } from "../db/stores/read-cache-store.js";
import { createBullQueue } from "../jobs/queue.js";
import { startReconciler } from "../jobs/reconciler.js";
import { RedisBus } from "../jobs/redis-bus.js";
import { openRedis } from "../jobs/redis-connections.js";
import { RedisRateLimiter } from "../jobs/redis-rate-limit.js";
import { recoverJobs, startCallWorker } from "../jobs/worker.js";
import { createLogger, type Logger } from "../log.js";
import { EgressPolicy } from "../net/egress-policy.js";
import { DockerSandboxProvider } from "../sandbox/docker-provider.js";
import { identitiesFrom, type SandboxProvider } from "../sandbox/sandbox.js";
import { createApiPort } from "../service/api-port.js";
import { readOrCreateKeyFile } from "../service/key-file.js";
import { Metrics } from "../service/metrics.js";
import type { ServiceDeps, ToolRegistry } from "../service/ports.js";
import { Readiness } from "../service/readiness.js";
import { createMcpRuntime, type McpClientsOptions } from "../service/sessions/mcp-clients.js";
import { liveSessionIds } from "../service/sessions/sessions.js";
import { ensureAdminKey } from "../service/tenancy/api-keys.js";
import { SkillFiles } from "../service/tool-config/skill-files.js";
import { announceAdminKey } from "./admin-key.js";
import { loadBuiltinTools } from "./tools.js";
import { createWebhookRuntime, startWebhookDelivery } from "./webhook-wiring.js";

export type ServeMode = "serve" | "api" | "worker";

export interface StartOptions {
  logger?: Logger;
  /** Tests may swap the sandbox provider (API-shape tests only) or the tools. */
  sandboxes?: SandboxProvider;
  tools?: ToolRegistry;
  /** `false` leaves tenants' MCP servers out (no routes, no MCP tools); an object tunes the clients. */
  mcp?: false | McpClientsOptions;
}

export interface RunningService {
  deps: ServiceDeps;
  /** Set when the API runs. */
  url?: string;
  port?: number;
  /** Set for a lone worker: its /healthz, /readyz and /metrics. */
  workerUrl?: string;
  stop(opts?: { force?: boolean }): Promise<void>;
}

export async function startService(
  config: Config,
  mode: ServeMode,
  opts: StartOptions = {},
): Promise<RunningService> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const stack: (() => Promise<void> | void)[] = [];
  let forceStop = false;
  const stop = async () => {
    for (const fn of stack.reverse()) await fn();
    stack.length = 0;
  };
  try {
    const { db, ping: pingDb, close } = openDb(join(config.DATA_DIR, "toolshed.db"));
    stack.push(close);
    const generated = ensureAdminKey({ db }, config.TOOLSHED_ADMIN_KEY);
    if (generated) announceAdminKey(config.DATA_DIR, generated, logger);

    // Requests bound their Redis work by DEPENDENCY_TIMEOUT_MS (stall-proof); the connection's
    // own command timeout is only a backstop against a Redis that hangs for good.
    const redis = await openRedis(config.REDIS_URL, {
      commandTimeoutMs: config.DEPENDENCY_TIMEOUT_MS * 10,
      logger,
    });
    stack.push(() => redis.close());
    const bus = new RedisBus(redis.commands, redis.subscriber, {
      prefix: config.QUEUE_PREFIX,
      maxLen: config.EVENT_STREAM_MAXLEN,
      ttlS: config.EVENT_STREAM_TTL_S,
    });
    await bus.start();
    const queue = createBullQueue(redis.commands, config);
    stack.push(() => queue.queue.close());

    const sandboxes = opts.sandboxes ?? dockerProvider(config, logger);
    if (!opts.sandboxes) stack.push(() => sandboxes.close());
    const tools = opts.tools ?? (await loadBuiltinTools());
    const metrics = new Metrics();
    const readiness = new Readiness(
      {
        redis: async () => void (await redis.commands.ping()),
        docker: async () => await sandboxes.ping?.(),
        database: pingDb,
      },
      {
        timeoutMs: config.DEPENDENCY_TIMEOUT_MS,
        cacheMs: 1000,
        onFailure: (dependency, err) => logger.warn({ err, dependency }, "dependency check failed"),
      },
    );
    const egress = new EgressPolicy(config.EGRESS_ALLOW);
    const webhooks = createWebhookRuntime(redis.commands, config, egress);
    stack.push(() => webhooks.close());
    const deps: ServiceDeps = {
      db,
      tools,
      queue,
      events: bus,
      cancels: bus,
      sandboxes,
      readCache: new SqliteReadCache(db),
      skillFiles: new SkillFiles(join(config.DATA_DIR, "skills")),
      metrics,
      logger,
      limiter: new RedisRateLimiter(redis.commands, config.QUEUE_PREFIX),
      quotas: { maxSessions: config.TENANT_MAX_SESSIONS, callsPerMinute: config.TENANT_CALLS_PER_MINUTE },
      mcp:
        opts.mcp === false
          ? undefined
          : createMcpRuntime({ db, logger, dataDir: config.DATA_DIR, egress }, opts.mcp),
      readiness,
      webhooks,
    };
    if (deps.mcp) {
      const { clients } = deps.mcp;
      stack.push(() => clients.close());
    }

    if (mode !== "api") {
      const reaped = await sandboxes.reapOrphans(liveSessionIds(db)).catch((err: unknown) => {
        logger.warn({ err }, "reaping orphaned containers failed");
        return 0;
      });
      const requeued = await recoverJobs(deps, queue);
      logger.info({ reaped, requeued }, "worker recovery done");
      const worker = startCallWorker(deps, redis.forWorker(), bus, {
        prefix: config.QUEUE_PREFIX,
        concurrency: config.WORKER_CONCURRENCY,
        lockDurationMs: config.JOB_LOCK_MS,
        stalledIntervalMs: config.JOB_STALLED_INTERVAL_MS,
        orderRecheckMs: config.ORDER_RECHECK_MS,
      });
      stack.push(() => worker.close(forceStop));
      const stopDelivery = await startWebhookDelivery({ ...deps, webhooks }, redis.forWorker(), config);
      stack.push(() => stopDelivery(forceStop));
      const reconciler = startReconciler(deps, queue, {
        intervalMs: config.RECONCILE_INTERVAL_MS,
        batch: config.RECONCILE_BATCH,
      });
      // Redis back (perhaps empty): a full sweep at once rather than at the next interval.
      const offReconnect = redis.onReconnect(() => {
        reconciler.sweep().then(
          (requeued) => logger.info({ requeued }, "reconciled after redis came back"),
          (err: unknown) => logger.warn({ err }, "reconcile sweep failed"),
        );
      });
      stack.push(async () => {
        offReconnect();
        await reconciler.stop();
      });
    }

    let url: string | undefined;
    let port: number | undefined;
    let workerUrl: string | undefined;
    if (mode !== "worker") {
      const app = createApp({
        port: createApiPort(deps, { consoleKey: readOrCreateKeyFile(config.DATA_DIR, "console.key") }),
        bodyLimitBytes: config.BODY_LIMIT_BYTES,
        logger: deps.logger,
      });
      const listening = await listen(app.fetch, config.PORT, config.HOST);
      stack.push(listening.close);
      ({ url, port } = listening);
      logger.info({ url }, "api listening");
    } else {
      // A lone worker still answers liveness, readiness and metrics, on a port of its own.
      const listening = await listen(createSystemApp(deps).fetch, config.WORKER_PORT, config.HOST);
      stack.push(listening.close);
      workerUrl = listening.url;
      logger.info({ url: workerUrl }, "worker listening");
    }
    return {
      deps,
      url,
      port,
      workerUrl,
      stop: async (o) => {
        forceStop = o?.force ?? false;
        await stop();
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Serves `fetch` on host:port (0: any free port) until the returned `close`. */
async function listen(fetch: (req: Request) => Response | Promise<Response>, port: number, host: string) {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch, port, hostname: host }, () => resolve(s));
  });
  const addr = server.address();
  const actual = typeof addr === "object" && addr ? addr.port : port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
  return { url: `http://${host}:${actual}`, port: actual, close };
}

function dockerProvider(config: Config, logger: Logger): DockerSandboxProvider {
  return new DockerSandboxProvider({
    dataDir: join(config.DATA_DIR, "sb"),
    serviceId: config.SERVICE_ID,
    image: config.SANDBOX_IMAGE,
    limits: {
      memoryBytes: config.SANDBOX_MEMORY_MB * 1024 * 1024,
      pids: config.SANDBOX_PIDS,
      nanoCpus: Math.round(config.SANDBOX_CPUS * 1e9),
    },
    idleStopMs: config.SANDBOX_IDLE_STOP_MS,
    identities: identitiesFrom(config.SANDBOX_UID_BASE),
    workspaceQuota:
      config.SANDBOX_DISK_QUOTA === "off"
        ? "off"
        : { diskBytes: config.SANDBOX_DISK_MB * 1024 * 1024, inodes: config.SANDBOX_INODES },
    runtime: config.SANDBOX_RUNTIME,
    logger,
  });
}

/** `toolshed serve|api|worker`: runs until SIGINT/SIGTERM, then stops in reverse order. */
export async function runServer(mode: ServeMode): Promise<number> {
  const config = loadConfig();
  const service = await startService(config, mode);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  service.deps.logger.info("stopping");
  await service.stop();
  return 0;
}
