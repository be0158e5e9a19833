/**
 * All settings, validated once by one zod schema. Nothing else in the codebase reads
 * `process.env`: the composition root calls `loadConfig()` and passes the result in.
 */
import { z } from "zod";
import { parseEgressAllow } from "./net/egress-policy.js";

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
/** A retention in days: 0 keeps forever; at most 100 years (past that a cutoff is no longer a date). */
const days = (def: number) =>
  int(def).refine((n) => n <= 36_500, { message: "must be at most 36500 (0 keeps forever)" });

const Settings = z.object({
  PORT: int(8080),
  HOST: z.string().default("127.0.0.1"),
  /** A worker run alone serves /healthz, /readyz and /metrics here (0: any free port). */
  WORKER_PORT: int(8081),
  DATA_DIR: z.string().default("./data"),
  /**
   * The host's own sandbox files (workspaces, executor sockets): local to the worker's Docker
   * engine, not shared between hosts. Default `<DATA_DIR>/sb`; keep it short (unix socket paths).
   */
  SANDBOX_DIR: z.string().optional(),
  /** `redis://`, `rediss://`, or Sentinel: `redis+sentinel://[:pw@]host:26379,host2:26379/<master>[/<db>]`. */
  REDIS_URL: z
    .string()
    .regex(/^(redis|rediss|redis\+sentinel|sentinel):\/\//, "use redis://, rediss:// or redis+sentinel://")
    .default("redis://127.0.0.1:6379"),
  /**
   * Postgres instead of the embedded SQLite file (`<DATA_DIR>/toolshed.db`):
   * `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (scripts/postgres.sh prints one).
   */
  DATABASE_URL: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text === "") return undefined;
      const problem = postgresUrlProblem(text);
      if (problem) {
        ctx.addIssue({ code: "custom", message: problem });
        return z.NEVER;
      }
      return text;
    }),
  /**
   * The key that seals tenants' secrets at rest (and from which the console's cookie key is
   * derived): 32 random bytes in base64 (`openssl rand -base64 32`), the same in every process.
   * Required with DATABASE_URL (hosts open each other's secrets). Unset on SQLite:
   * `<DATA_DIR>/secret.key`, made on first start.
   */
  TOOLSHED_SECRET_KEY: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text === "") return undefined;
      const key = Buffer.from(text.trim(), "base64");
      if (key.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text.trim())) {
        ctx.addIssue({
          code: "custom",
          message: "must be 32 random bytes in base64 (openssl rand -base64 32)",
        });
        return z.NEVER;
      }
      return key;
    }),
  TOOLSHED_ADMIN_KEY: z.string().min(16).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SANDBOX_IMAGE: z.string().default("toolshed-sandbox:latest"),
  /** Labels containers and namespaces Redis keys, so several services can share a host. */
  SERVICE_ID: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .default("toolshed"),
  /** BullMQ prefix; tests give each run its own. Wrapped in a Redis hash tag (`{toolshed}`) for Redis Cluster. */
  QUEUE_PREFIX: z.string().default("toolshed"),
  /**
   * This worker's host: one worker per Docker engine, named in sessions and jobs. Default: derived
   * from the engine's ID, so two workers on one engine share a host and two engines never do.
   */
  HOST_ID: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/)
    .optional(),
  /** A host whose worker has not refreshed its liveness key for this long is lost (its sessions are re-homed). */
  HOST_TTL_MS: int(10_000, 1000),
  /** How long an API waits for a session's worker to list its stdio MCP servers' tools. */
  HOST_RPC_TIMEOUT_MS: int(30_000, 100),
  WORKER_CONCURRENCY: int(16, 1),
  /** BullMQ lock: a dead worker's jobs are recovered after about this long. */
  JOB_LOCK_MS: int(30_000, 1000),
  JOB_STALLED_INTERVAL_MS: int(15_000, 500),
  /** How often a job held back by its session's ordering is looked at again (it is also promoted). */
  ORDER_RECHECK_MS: int(500, 10),
  /** How often job rows are compared with the queue (rows expecting a run without an entry are re-queued). */
  RECONCILE_INTERVAL_MS: int(5000, 100),
  /** Rows looked at per reconcile pass. */
  RECONCILE_BATCH: int(500, 1),
  /** Bound on the Redis work of a submit and on each readiness probe (503, never a hang); the Redis connection's own command timeout is 10x this. */
  DEPENDENCY_TIMEOUT_MS: int(1000, 50),
  /**
   * Attempts of a call whose sandbox does not start. Fixed when the call is queued (by the API, or
   * by the worker that passes it on): give every process the same value.
   */
  SANDBOX_RETRY_ATTEMPTS: int(4, 1),
  /**
   * How long a new session's work waits for a host whose Docker engine answers; after that a host
   * whose engine does not takes it, and the call fails saying it did not run (no engine anywhere).
   * Counted on that host's clock from when it first saw the work (jobs/placement-waits.ts).
   */
  ENGINE_WAIT_MS: int(10_000, 0),
  /**
   * How long a stop waits for a queue worker's own graceful close once nothing of ours runs on it
   * (BullMQ's bookkeeping; a fetch caught by a Redis restart may never end it), before cutting it.
   */
  QUEUE_CLOSE_PATIENCE_MS: int(10_000, 0),
  /** A Docker engine request with no answer for this long fails (a stalled engine: the call is retried, a stop ends). */
  DOCKER_TIMEOUT_MS: int(30_000, 100),
  SANDBOX_RETRY_BACKOFF_MS: int(1000, 0),
  /** Webhook deliveries: attempts in all, the first retry's delay (doubling after), each POST's timeout. */
  WEBHOOK_ATTEMPTS: int(8, 1),
  WEBHOOK_BACKOFF_MS: int(1000, 0),
  WEBHOOK_TIMEOUT_MS: int(10_000, 100),
  /**
   * How often each worker writes the deliveries a stopped process left unwritten (a job's status
   * committed, its delivery row not yet): a lost delivery goes out within this (and at a start).
   */
  WEBHOOK_RECONCILE_INTERVAL_MS: int(60_000, 100),
  /**
   * How far back (by the job's creation) that looks: past the default approval TTL (1 h). At most
   * 12 h, well inside the shortest delivery retention (1 day): a pruned row is never written again.
   */
  WEBHOOK_RECONCILE_WINDOW_MS: z.coerce.number().int().min(60_000).max(43_200_000).default(7_200_000),
  BODY_LIMIT_BYTES: int(1024 * 1024, 1024),
  /**
   * The origin browsers use for the console (`https://toolshed.example.com`), when a reverse proxy
   * in front rewrites `Host`: a console change must then come from exactly this origin. Unset, the
   * browser's Origin is compared with the request's Host.
   */
  PUBLIC_URL: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text === "") return undefined;
      const origin = publicOrigin(text);
      if (origin === null) {
        ctx.addIssue({
          code: "custom",
          message: "must be the origin browsers use: http(s)://host[:port], no path, query or credentials",
        });
        return z.NEVER;
      }
      return origin;
    }),
  /**
   * How long a client may take to send a whole request, headers and body (Node answers 408 and
   * closes past it): a client trickling a body cannot hold a connection for Node's 300 s. A
   * response's wait (`?wait`, SSE) does not count. 120 s lets a 64 MiB transfer through at ~0.6 MB/s.
   */
  HTTP_REQUEST_TIMEOUT_MS: int(120_000, 1000),
  /** The largest file upload/download and workspace tar export/import (the request body or the answer). */
  FILE_TRANSFER_MAX_BYTES: int(64 * 1024 * 1024, 1024),
  /** How long a transfer request waits for a worker before it answers 504 TRANSFER_PENDING naming its job. */
  FILE_TRANSFER_WAIT_MS: int(300_000, 100),
  /**
   * A session MCP call whose client asked for progress gets a notification this often while it
   * runs. Below the MCP SDK client's 60 s request timeout, which each notification resets; lower
   * it behind a proxy that closes streams idle for less.
   */
  MCP_PROGRESS_INTERVAL_MS: int(10_000, 100).refine((ms) => ms < 60_000, {
    message: "must be below 60000 (the MCP client's default request timeout, which each notification resets)",
  }),
  /** Per-tenant quotas (429 with Retry-After past them). */
  TENANT_MAX_SESSIONS: int(1000, 1),
  TENANT_CALLS_PER_MINUTE: int(6000, 1),
  /** Live (unrevoked) API keys a tenant may hold; past it a new key is a 409 until one is revoked. */
  TENANT_MAX_API_KEYS: int(100, 1),
  EVENT_STREAM_MAXLEN: int(10_000, 10),
  /** Event streams are for live followers; after this the stored result is what a reader gets. */
  EVENT_STREAM_TTL_S: int(10 * 60, 1),
  /**
   * The longest a fast read's events wait after its answer before they are written (RedisBus's
   * held publishes; sooner when this process writes or reads other events). Lower: followers in
   * other processes see them sooner; higher: more of them go in one tick.
   */
  EVENTS_HOLD_MS: z.coerce.number().int().min(1).max(1000).default(25),
  SANDBOX_MEMORY_MB: int(1024, 64),
  SANDBOX_CPUS: z.coerce.number().positive().default(1),
  SANDBOX_PIDS: int(256, 16),
  SANDBOX_IDLE_STOP_MS: int(15 * 60_000, 1000),
  /**
   * The first of the sandbox's uids (agent = base, readers' group +1, MCP servers +2, read-only
   * calls +10…+25). Above every host user by default, so no sandbox process is a host account.
   */
  SANDBOX_UID_BASE: int(100000, 1000),
  /**
   * A host uid range per sandbox: this many slots of 128 uids from SANDBOX_UID_SLOT_BASE, one per
   * container of the host, so that no per-uid kernel counter (SHM_LOCK's memlock, RLIMIT_NPROC,
   * epoll watches) is shared between tenants. On by default (secure by default): 65536 slots end
   * at uid 1,008,388,608, well below 2^31, and a random pick among that many free ones makes two
   * processes sharing one engine (test runs) seldom pick alike. 0: every sandbox runs under
   * SANDBOX_UID_BASE's range, as before round 16. Needs root (workspaces moved to another range are
   * re-owned; without root the worker warns and keeps the shared range): docs/sandbox.md, "A uid
   * range per sandbox".
   */
  SANDBOX_UID_SLOTS: int(65536, 0),
  /** The first slot's base uid: far above host users and subuid ranges, below 2^31. */
  SANDBOX_UID_SLOT_BASE: int(1_000_000_000, 200_000),
  /**
   * Exceptions to the egress policy (loopback, private, link-local and metadata addresses are
   * refused for tenant traffic): comma-separated CIDRs, addresses and host names (`*.corp.example`).
   */
  EGRESS_ALLOW: z
    .string()
    .default("")
    .transform((text, ctx) => {
      const parsed = parseEgressAllow(text);
      if ("error" in parsed) {
        ctx.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed;
    }),
  /**
   * Images a tenant admin may choose for the tenant's sandboxes (comma-separated; SANDBOX_IMAGE is
   * always allowed). Managed by the platform: tenants pick from it, never add to it.
   */
  SANDBOX_IMAGE_ALLOWLIST: z
    .string()
    .default("")
    .transform((text) =>
      text
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  /** The most a tenant may give its sandboxes (its settings over these are a 400). */
  SANDBOX_MAX_MEMORY_MB: int(4096, 64),
  SANDBOX_MAX_CPUS: z.coerce.number().positive().default(4),
  SANDBOX_MAX_PIDS: int(1024, 16),
  SANDBOX_MAX_DISK_MB: int(8192, 8),
  /** Size and inode count of each session's /workspace (a loop-mounted ext4 image). */
  SANDBOX_DISK_MB: int(1024, 8),
  SANDBOX_INODES: int(100_000, 256),
  /** `off` runs without workspace quotas (no root needed; one session can then fill the disk). */
  SANDBOX_DISK_QUOTA: z.enum(["on", "off"]).default("on"),
  /**
   * Hardened containers each worker keeps started for new sessions (a session's first call then
   * skips the container start); refilled in the background, removed on shutdown. Needs root and
   * runc (off otherwise, with a warning); 0 turns it off.
   */
  SANDBOX_WARM_POOL: int(2, 0),
  /** OCI runtime of the sandboxes; `runsc` (gVisor) must be registered with dockerd. */
  SANDBOX_RUNTIME: z.enum(["runc", "runsc"]).default("runc"),
  /**
   * Retention (src/service/retention): days a row is kept once it is over, 0 = forever. Finished
   * jobs (with their inputs, results and idempotency keys) from their finish; the audit trail
   * from its entry (the security record: never shorter than jobs); ended sessions from their end
   * (and only once their jobs are gone); revoked API keys from their revocation; webhook
   * deliveries delivered or given up from their creation. What is not over is never pruned.
   */
  JOB_RETENTION_DAYS: days(30),
  AUDIT_RETENTION_DAYS: days(400),
  SESSION_RETENTION_DAYS: days(30),
  REVOKED_KEY_RETENTION_DAYS: days(90),
  WEBHOOK_DELIVERY_RETENTION_DAYS: days(14),
  /** How often the pruner looks for rows past their retention (one worker host per interval). */
  PRUNE_INTERVAL_MS: int(60_000, 1000),
  /** Rows deleted per transaction (SQLite has one writer: small batches keep calls' writes waiting little). */
  PRUNE_BATCH: int(50, 1).refine((n) => n <= 10_000, { message: "must be at most 10000" }),
  /** The least pause between two batches of a pass (and 19x the batch's time), in which calls go first. */
  PRUNE_PAUSE_MS: int(20, 0),
});

/** All settings; the checks that relate two of them come after each one's own. */
export const Config = Settings.superRefine((c, ctx) => {
  if (
    c.AUDIT_RETENTION_DAYS !== 0 &&
    c.JOB_RETENTION_DAYS !== 0 &&
    c.AUDIT_RETENTION_DAYS < c.JOB_RETENTION_DAYS
  )
    ctx.addIssue({
      code: "custom",
      path: ["AUDIT_RETENTION_DAYS"],
      message: `must be 0 (forever) or at least JOB_RETENTION_DAYS (${c.JOB_RETENTION_DAYS}): the audit trail is the security record of the jobs it names`,
    });
});
export type Config = z.infer<typeof Config>;

/** `text` as an origin (`https://host[:port]`, lower-cased, default port dropped), or null. */
function publicOrigin(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const bare = url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
  return (url.protocol === "http:" || url.protocol === "https:") && bare ? url.origin : null;
}

/** Why `text` is not a usable Postgres URL (never quoting it: it may hold a password), or null. */
function postgresUrlProblem(text: string): string | null {
  const example = "postgres://USER:PASSWORD@HOST:PORT/DATABASE";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `must be a URL like ${example}`;
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:")
    return `must start with postgres:// or postgresql:// (got ${url.protocol}//), like ${example}`;
  if (!url.hostname) return `names no host: use ${example}`;
  if (url.pathname.length <= 1) return `names no database: add /DATABASE, like ${example}`;
  return null;
}

/** Parses the environment (or a test's explicit object); throws a readable error when invalid. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = Config.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  return parsed.data;
}
