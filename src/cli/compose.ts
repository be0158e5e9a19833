/**
 * The composition root: reads nothing but the config it is given, builds every adapter and
 * starts what the mode asks for, in this order (shutdown stops them in reverse):
 *
 *   database → redis → event bus → queue → sandboxes → mcp clients → key streams
 *   → [worker modes] worker → approval sweeper → reconciler → pruner
 *   → [api modes] session mcp endpoint → http server   ([worker mode] system http server)
 *
 * Each part is recorded by the `Lifecycle` as soon as it runs, so a start that fails half-way
 * stops exactly what had started, and `stop()` a second time does nothing.
 */
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { createApp, createSystemApp } from "../api/app.js";
import type { Config } from "../config.js";
import { openDatabase } from "../db/open-database.js";
import { DbReadCache } from "../db/stores/read-cache-store.js";
import { bullPrefix, hostQueueName, PLACEMENT_QUEUE } from "../jobs/catalog.js";
import { HostRegistry } from "../jobs/host-registry.js";
import { RedisHostRpc, RemoteSandboxes } from "../jobs/host-rpc.js";
import { createBullQueue } from "../jobs/queue.js";
import { startReconciler } from "../jobs/reconciler.js";
import { RedisBus } from "../jobs/redis-bus.js";
import { openRedis } from "../jobs/redis-connections.js";
import { RedisRateLimiter } from "../jobs/redis-rate-limit.js";
import { RedisTransferStore } from "../jobs/redis-transfers.js";
import { recoverJobs, startCallWorker } from "../jobs/worker.js";
import { createLogger, type Logger } from "../log.js";
import { SessionMcpEndpoint } from "../mcp-server/session-server.js";
import { EgressPolicy } from "../net/egress-policy.js";
import { DockerSandboxProvider } from "../sandbox/docker-provider.js";
import { identitiesFrom, type SandboxProvider } from "../sandbox/sandbox.js";
import { createApiPort } from "../service/api-port.js";
import { startApprovalSweeper } from "../service/calls/approval-expiry.js";
import { serverKey } from "../service/key-file.js";
import { Metrics } from "../service/metrics.js";
import type { ServiceDeps, ToolRegistry } from "../service/ports.js";
import { Readiness } from "../service/readiness.js";
import { retentionSettings, startPruner } from "../service/retention/pruner.js";
import { SecretBox } from "../service/secret-box.js";
import { createMcpRuntime, type McpClientsOptions } from "../service/sessions/mcp-clients.js";
import { hostOfJob, hostOfSession, sessionsOfHost } from "../service/sessions/session-hosts.js";
import { ensureAdminKey } from "../service/tenancy/api-keys.js";
import { KeyStreams } from "../service/tenancy/key-streams.js";
import { SkillFiles } from "../service/tool-config/skill-files.js";
import { announceAdminKey } from "./admin-key.js";
import { requireSharedKey } from "./database.js";
import { Lifecycle } from "./lifecycle.js";
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
  /** How often pending approvals past their expiry are denied (worker modes; default 5 s). */
  approvalSweepMs?: number;
}

export interface RunningService {
  deps: ServiceDeps;
  /** Set when the API runs. */
  url?: string;
  port?: number;
  /** Set for a lone worker: its /healthz, /readyz and /metrics. */
  workerUrl?: string;
  /** The running parts in start order, and those stopped so far (in stop order). */
  parts: { readonly started: readonly string[]; readonly stopped: readonly string[] };
  /** Stops everything in reverse start order; a second call does nothing more. */
  stop(opts?: { force?: boolean }): Promise<void>;
}

export async function startService(
  config: Config,
  mode: ServeMode,
  opts: StartOptions = {},
): Promise<RunningService> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const life = new Lifecycle(logger);
  let forceStop = false;
  try {
    requireSharedKey(config);
    const { db, store, ping: pingDb, close } = await openDatabase(config);
    life.started("database", close);
    const generated = await ensureAdminKey({ db }, config.TOOLSHED_ADMIN_KEY);
    if (generated) announceAdminKey(config.DATA_DIR, generated, logger);

    // Requests bound their Redis work by DEPENDENCY_TIMEOUT_MS (stall-proof); the connection's
    // own command timeout is only a backstop against a Redis that hangs for good.
    const redis = await openRedis(config.REDIS_URL, {
      commandTimeoutMs: config.DEPENDENCY_TIMEOUT_MS * 10,
      logger,
    });
    life.started("redis", () => redis.close());
    const bus = new RedisBus(redis.commands, redis.subscriber, {
      prefix: config.QUEUE_PREFIX,
      maxLen: config.EVENT_STREAM_MAXLEN,
      ttlS: config.EVENT_STREAM_TTL_S,
      heldMs: config.EVENTS_HOLD_MS,
    });
    await bus.start();
    life.started("event bus", () => bus.stop());
    const hosts = new HostRegistry(redis.commands, config.QUEUE_PREFIX, config.HOST_TTL_MS);
    const queue = createBullQueue(redis.commands, config, {
      hostOf: async (jobId) => await hostOfJob(db, jobId),
      isAlive: (hostId) => hosts.isAlive(hostId),
    });
    life.started("queue", () => queue.close());
    const hostRpc = new RedisHostRpc(redis.commands, queue, {
      prefix: config.QUEUE_PREFIX,
      timeoutMs: config.HOST_RPC_TIMEOUT_MS,
      hostOfSession: async (sessionId) => await hostOfSession(db, sessionId),
    });

    const metrics = new Metrics().withProcessDefaults();
    const counts = ["waiting", "prioritized", "active", "delayed", "failed"] as const;
    metrics.trackQueue(PLACEMENT_QUEUE, () => queue.queue.getJobCounts(...counts));
    // An API process talks to no Docker engine: listings and removals go to the session's worker.
    const docker = opts.sandboxes || mode === "api" ? undefined : dockerProvider(config, logger, metrics);
    const sandboxes: SandboxProvider = opts.sandboxes ?? docker ?? new RemoteSandboxes(hostRpc);
    // A provider the caller passed in is the caller's to close.
    if (docker) life.started("sandboxes", () => docker.close());
    metrics.trackLiveSandboxes(() => sandboxes.liveCount?.() ?? 0);
    const hostId = mode === "api" ? undefined : (config.HOST_ID ?? (await defaultHostId(docker)));
    if (hostId)
      metrics.trackQueue(hostQueueName(hostId), () => queue.hostQueue(hostId).getJobCounts(...counts));
    const tools = opts.tools ?? (await loadBuiltinTools());
    const readiness = new Readiness(
      {
        redis: async () => void (await redis.commands.ping()),
        ...(mode === "api" ? {} : { docker: async () => await sandboxes.ping?.() }),
        database: pingDb,
      },
      {
        timeoutMs: config.DEPENDENCY_TIMEOUT_MS,
        cacheMs: 1000,
        onFailure: (dependency, err) => logger.warn({ err, dependency }, "dependency check failed"),
      },
    );
    const egress = new EgressPolicy(config.EGRESS_ALLOW);
    // One key seals every tenant secret at rest (MCP headers, sandbox environment, webhook secrets):
    // from the configuration when several hosts share the database, else a file in DATA_DIR.
    const secrets = config.TOOLSHED_SECRET_KEY
      ? SecretBox.fromKey(config.TOOLSHED_SECRET_KEY)
      : SecretBox.fromDataDir(config.DATA_DIR);
    const webhooks = createWebhookRuntime(redis.commands, config, egress, secrets);
    life.started("webhook queue", () => webhooks.close());
    const mcp =
      opts.mcp === false
        ? undefined
        : createMcpRuntime(
            {
              db,
              logger,
              dataDir: config.DATA_DIR,
              secretKey: config.TOOLSHED_SECRET_KEY,
              egress,
            },
            opts.mcp,
          );
    if (mcp) life.started("mcp clients", () => mcp.clients.close());
    const deps: ServiceDeps = {
      db,
      store,
      tools,
      queue,
      events: bus,
      cancels: bus,
      sandboxes,
      readCache: new DbReadCache(db),
      skillFiles: new SkillFiles(join(config.DATA_DIR, "skill-cache"), db),
      transfers: new RedisTransferStore(redis.commands, {
        prefix: config.QUEUE_PREFIX,
        maxBytes: config.FILE_TRANSFER_MAX_BYTES,
        waitMs: config.FILE_TRANSFER_WAIT_MS,
      }),
      metrics,
      logger,
      limiter: new RedisRateLimiter(redis.commands, config.QUEUE_PREFIX),
      quotas: {
        maxSessions: config.TENANT_MAX_SESSIONS,
        callsPerMinute: config.TENANT_CALLS_PER_MINUTE,
        maxApiKeys: config.TENANT_MAX_API_KEYS,
      },
      mcp,
      readiness,
      secrets,
      webhooks,
      hostRpc,
      jobRetentionDays: config.JOB_RETENTION_DAYS,
      ...(hostId ? { hostId } : {}),
      sandboxPolicy: {
        defaultImage: config.SANDBOX_IMAGE,
        imageAllowlist: config.SANDBOX_IMAGE_ALLOWLIST,
        caps: {
          memoryMb: config.SANDBOX_MAX_MEMORY_MB,
          cpus: config.SANDBOX_MAX_CPUS,
          pids: config.SANDBOX_MAX_PIDS,
          diskMb: config.SANDBOX_MAX_DISK_MB,
        },
      },
    };
    // Long-lived streams by key (SSE, MCP sessions), so that revoking a key ends them.
    const keyStreams = new KeyStreams(db);
    life.started("key streams", () => keyStreams.close());

    if (hostId) {
      const reaped = await sandboxes.reapOrphans(await sessionsOfHost(db, hostId)).catch((err: unknown) => {
        logger.warn({ err }, "reaping orphaned containers failed");
        return 0;
      });
      const requeued = await recoverJobs(deps, queue);
      logger.info({ reaped, requeued, hostId }, "worker recovery done");
      const worker = startCallWorker(deps, redis.forWorker(), bus, {
        prefix: bullPrefix(config.QUEUE_PREFIX),
        hostId,
        hosts,
        queue,
        replies: redis.commands,
        concurrency: config.WORKER_CONCURRENCY,
        lockDurationMs: config.JOB_LOCK_MS,
        stalledIntervalMs: config.JOB_STALLED_INTERVAL_MS,
        orderRecheckMs: config.ORDER_RECHECK_MS,
        engineWaitMs: config.ENGINE_WAIT_MS,
        closePatienceMs: config.QUEUE_CLOSE_PATIENCE_MS,
        cancelCheckMs: config.RECONCILE_INTERVAL_MS,
      });
      // Serve mode: calls this process's API stores may run here without the queue's round trips.
      if (mode === "serve") deps.handoff = worker.handoff;
      life.started("worker", () => worker.close(forceStop));
      const stopDelivery = await startWebhookDelivery({ ...deps, webhooks }, redis.forWorker(), config, () =>
        hosts.claimDeliveryReconcile(Math.max(100, config.WEBHOOK_RECONCILE_INTERVAL_MS - 500)),
      );
      life.started("webhook delivery", () => stopDelivery(forceStop));
      // With the worker so that every deployment (serve or a separate worker) expires approvals.
      life.started("approval sweeper", startApprovalSweeper(deps, opts.approvalSweepMs ?? 5000));
      const reconciler = startReconciler(deps, queue, {
        intervalMs: config.RECONCILE_INTERVAL_MS,
        batch: config.RECONCILE_BATCH,
        runsNow: worker.runsNow,
      });
      // Redis back (perhaps empty): a full sweep at once rather than at the next interval.
      const offReconnect = redis.onReconnect(() => {
        reconciler.sweep().then(
          (requeued) => logger.info({ requeued }, "reconciled after redis came back"),
          (err: unknown) => logger.warn({ err }, "reconcile sweep failed"),
        );
      });
      life.started("reconciler", async () => {
        offReconnect();
        await reconciler.stop();
      });
      // Retention, with the worker (every deployment has one); one host prunes per interval.
      const pruner = startPruner(deps, retentionSettings(config), {
        intervalMs: config.PRUNE_INTERVAL_MS,
        lease: () => hosts.claimPrune(Math.max(1000, config.PRUNE_INTERVAL_MS - 500)),
      });
      life.started("pruner", () => pruner.stop());
    }

    let url: string | undefined;
    let port: number | undefined;
    let workerUrl: string | undefined;
    if (mode !== "worker") {
      const apiPort = createApiPort(deps, keyStreams, {
        consoleKey: serverKey(config.DATA_DIR, "console.key", config.TOOLSHED_SECRET_KEY),
        mcpProgressEveryMs: config.MCP_PROGRESS_INTERVAL_MS,
      });
      // This process's stateful MCP sessions; stopped after the HTTP server so none is opened anew.
      const sessionMcp = new SessionMcpEndpoint(apiPort.sessionMcp, logger, { keyStreams });
      life.started("session mcp endpoint", () => sessionMcp.close());
      const app = createApp({
        port: apiPort,
        sessionMcp,
        bodyLimitBytes: config.BODY_LIMIT_BYTES,
        logger,
        publicOrigin: config.PUBLIC_URL,
      });
      const listening = await listen(app.fetch, config.PORT, config.HOST, config.HTTP_REQUEST_TIMEOUT_MS);
      life.started("http server", listening.close);
      ({ url, port } = listening);
      logger.info({ url }, "api listening");
    } else {
      // A lone worker still answers liveness, readiness and metrics, on a port of its own.
      const listening = await listen(
        createSystemApp(deps).fetch,
        config.WORKER_PORT,
        config.HOST,
        config.HTTP_REQUEST_TIMEOUT_MS,
      );
      life.started("system http server", listening.close);
      workerUrl = listening.url;
      logger.info({ url: workerUrl }, "worker listening");
    }
    return {
      deps,
      url,
      port,
      workerUrl,
      parts: {
        get started() {
          return life.names;
        },
        stopped: life.stopped,
      },
      stop: async (o) => {
        forceStop ||= o?.force ?? false;
        await life.stop();
      },
    };
  } catch (err) {
    await life.stop();
    throw err;
  }
}

/**
 * Serves `fetch` on host:port (0: any free port) until the returned `close`; a request not
 * received whole within `requestTimeoutMs` is answered 408 and its connection closed.
 */
async function listen(
  fetch: (req: Request) => Response | Promise<Response>,
  port: number,
  host: string,
  requestTimeoutMs: number,
) {
  // Node looks at its connections' timers every `connectionsCheckingInterval` (30 s by default):
  // a quarter of the timeout keeps a short timeout close to what it says.
  const serverOptions = {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(60_000, requestTimeoutMs),
    connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(requestTimeoutMs / 4))),
  };
  // A port in use is an error of the start (so the parts started before it are stopped), not a hang.
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch, port, hostname: host, serverOptions }, () => {
      s.off("error", reject);
      resolve(s);
    });
    s.once("error", reject);
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

/**
 * One host per Docker engine: the engine's ID (two workers on one engine are one host, two engines
 * never are), else this machine's name.
 */
async function defaultHostId(docker: DockerSandboxProvider | undefined): Promise<string> {
  const raw = (await docker?.engineId().catch(() => undefined)) ?? hostname();
  const id = raw
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `h-${createHash("sha256").update(id).digest("hex").slice(0, 12)}`;
}

/** The Docker provider the settings describe (also what tests use to clean up after child workers). */
export function dockerProvider(config: Config, logger: Logger, metrics?: Metrics): DockerSandboxProvider {
  return new DockerSandboxProvider({
    dataDir: config.SANDBOX_DIR ?? join(config.DATA_DIR, "sb"),
    serviceId: config.SERVICE_ID,
    image: config.SANDBOX_IMAGE,
    limits: {
      memoryBytes: config.SANDBOX_MEMORY_MB * 1024 * 1024,
      pids: config.SANDBOX_PIDS,
      nanoCpus: Math.round(config.SANDBOX_CPUS * 1e9),
    },
    idleStopMs: config.SANDBOX_IDLE_STOP_MS,
    engineTimeoutMs: config.DOCKER_TIMEOUT_MS,
    identities: identitiesFrom(config.SANDBOX_UID_BASE),
    ...(config.SANDBOX_UID_SLOTS > 0
      ? { uidSlots: { base: config.SANDBOX_UID_SLOT_BASE, count: config.SANDBOX_UID_SLOTS } }
      : {}),
    workspaceQuota:
      config.SANDBOX_DISK_QUOTA === "off"
        ? "off"
        : { diskBytes: config.SANDBOX_DISK_MB * 1024 * 1024, inodes: config.SANDBOX_INODES },
    runtime: config.SANDBOX_RUNTIME,
    warmPool: config.SANDBOX_WARM_POOL,
    logger,
    onRoundTrip: (op, seconds, ok) =>
      metrics?.executorRoundTrip.observe({ op, outcome: ok ? "ok" : "error" }, seconds),
  });
}
