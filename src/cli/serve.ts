/**
 * The composition root: reads the config once, opens the DB (migrations applied), builds the
 * adapters (Redis, BullMQ, Docker sandboxes, tools) and starts the API and/or the worker.
 * SIGINT/SIGTERM stop everything in reverse order.
 */
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { Redis } from "ioredis";
import { createApp } from "../api/app.js";
import { type Config, loadConfig } from "../config.js";
import { openDb } from "../db/open.js";
import { createBullQueue } from "../jobs/queue.js";
import { RedisBus } from "../jobs/redis-bus.js";
import { RedisRateLimiter } from "../jobs/redis-rate-limit.js";
import { recoverJobs, startCallWorker } from "../jobs/worker.js";
import { createLogger, type Logger } from "../log.js";
import { EgressPolicy } from "../net/egress-policy.js";
import { DockerSandboxProvider } from "../sandbox/docker-provider.js";
import { identitiesFrom, type SandboxProvider } from "../sandbox/sandbox.js";
import type { ServiceDeps, ToolRegistry } from "../service/deps.js";
import { ensureAdminKey } from "../service/keys.js";
import { createMcpRuntime, type McpClientsOptions } from "../service/mcp-clients.js";
import { Metrics } from "../service/metrics.js";
import { SqliteReadCache } from "../service/read-cache-store.js";
import { liveSessionIds } from "../service/sessions.js";
import { SkillFiles } from "../service/skill-files.js";
import { loadBuiltinTools } from "./tools.js";

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
    const { db, close } = openDb(join(config.DATA_DIR, "toolshed.db"));
    stack.push(close);
    const generated = ensureAdminKey({ db }, config.TOOLSHED_ADMIN_KEY);
    if (generated) logger.warn({ adminKey: generated }, "admin key generated (shown once: store it now)");

    const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: false });
    stack.push(() => void redis.disconnect());
    const sub = redis.duplicate();
    stack.push(() => void sub.disconnect());
    const bus = new RedisBus(redis, sub, {
      prefix: config.QUEUE_PREFIX,
      maxLen: config.EVENT_STREAM_MAXLEN,
      ttlS: config.EVENT_STREAM_TTL_S,
    });
    await bus.start();
    const queue = createBullQueue(redis, config);
    stack.push(() => queue.queue.close());

    const sandboxes = opts.sandboxes ?? dockerProvider(config, logger);
    if (!opts.sandboxes) stack.push(() => sandboxes.close());
    const tools = opts.tools ?? (await loadBuiltinTools());
    const metrics = new Metrics();
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
      limiter: new RedisRateLimiter(redis, config.QUEUE_PREFIX),
      quotas: { maxSessions: config.TENANT_MAX_SESSIONS, callsPerMinute: config.TENANT_CALLS_PER_MINUTE },
      mcp:
        opts.mcp === false
          ? undefined
          : createMcpRuntime(
              { db, logger, dataDir: config.DATA_DIR, egress: new EgressPolicy(config.EGRESS_ALLOW) },
              opts.mcp,
            ),
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
      const worker = startCallWorker(deps, redis, bus, {
        prefix: config.QUEUE_PREFIX,
        concurrency: config.WORKER_CONCURRENCY,
        lockDurationMs: config.JOB_LOCK_MS,
        stalledIntervalMs: config.JOB_STALLED_INTERVAL_MS,
        orderRecheckMs: config.ORDER_RECHECK_MS,
      });
      stack.push(() => worker.close(forceStop));
    }

    let url: string | undefined;
    let port: number | undefined;
    if (mode !== "worker") {
      const app = createApp({ ...deps, bodyLimitBytes: config.BODY_LIMIT_BYTES });
      const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
        const s = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, () => resolve(s));
      });
      const addr = server.address();
      port = typeof addr === "object" && addr ? addr.port : config.PORT;
      url = `http://${config.HOST}:${port}`;
      logger.info({ url }, "api listening");
      stack.push(
        () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      );
    }
    return {
      deps,
      url,
      port,
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
