/**
 * The closed list of error codes (docs/api.md#errors) with their HTTP statuses, and the error classes the
 * service throws. `src/api/errors.ts` is the one place that turns them into responses.
 */

export const ERROR_STATUS = {
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  /** The session's permission rules refuse a file transfer (details name the path and rule). */
  POLICY_DENIED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  /** The host refuses to connect there for a tenant (egress policy); details name the field. */
  EGRESS_REFUSED: 422,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  SANDBOX_UNAVAILABLE: 503,
  /** Redis, the Docker engine or the database cannot be reached; nothing was created. */
  UNAVAILABLE: 503,
  /**
   * A file transfer's job was made but no worker ran it in time: it will run once, later
   * (`details[0].message` is its id). Not a 503, which promises that nothing was made.
   */
  TRANSFER_PENDING: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

/** An expected failure with a stable code; its message is safe to show to callers. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super("VALIDATION", message, details);
  }
}

/** Missing and other tenants' resources alike: callers cannot tell them apart. */
export class NotFoundError extends AppError {
  /** `hint` (the same for missing and other tenants' ids) says why a row may be gone, e.g. retention. */
  constructor(resource: string, id: string, hint?: string) {
    super("NOT_FOUND", `${resource} ${id} not found${hint ? ` (${hint})` : ""}`);
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = "missing or invalid API key") {
    super("UNAUTHENTICATED", message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = "this key's role may not do that") {
    super("FORBIDDEN", message);
  }
}

/** The permission engine refused (or would ask about) a file transfer, which cannot wait for approval. */
export class PolicyDeniedError extends AppError {
  constructor(message: string, details: ErrorDetail[]) {
    super("POLICY_DENIED", message, details);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super("CONFLICT", message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super("PAYLOAD_TOO_LARGE", `request body exceeds ${limitBytes} bytes`);
  }
}

export class RateLimitedError extends AppError {
  constructor(message: string, retryAfterS: number) {
    super("RATE_LIMITED", message, undefined, retryAfterS);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message = "the request body must be JSON (Content-Type: application/json)") {
    super("UNSUPPORTED_MEDIA_TYPE", message);
  }
}

/** A dependency is down or busy; the caller should retry after `retryAfterS`. */
export class UnavailableError extends AppError {
  constructor(message: string, retryAfterS = 2) {
    super("UNAVAILABLE", message, undefined, retryAfterS);
  }
}

/**
 * Recognises a dependency outage in an error thrown by a driver (ioredis failing fast, SQLite
 * still busy after its timeout, Postgres unreachable or gone mid-query), so that it answers 503
 * instead of 500. Matched by name, code and message: the drivers' error classes are not
 * imported outside their adapters.
 */
export function asUnavailable(err: unknown): UnavailableError | undefined {
  if (!(err instanceof Error)) return undefined;
  if (isDatabaseUnreachable(err)) return new UnavailableError("the database is unreachable; retry shortly");
  if (isStorageFull(err))
    return new UnavailableError("the service's storage is full: nothing was stored; retry later", 30);
  if (isRedisFull(err))
    return new UnavailableError("the queue (Redis) is full: nothing was stored; retry later", 30);
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))) {
    return new UnavailableError("the database is busy; retry shortly", 1);
  }
  // ioredis's own words when its connection fails fast (no offline queue, command timeout).
  const redisDown =
    err.name === "MaxRetriesPerRequestError" ||
    /enableOfflineQueue|^Command timed out|^Connection is closed/.test(err.message);
  return redisDown ? new UnavailableError("the queue (Redis) is unreachable; retry shortly") : undefined;
}

/**
 * Redis's answer to a write once its `maxmemory` is reached under the `noeviction` policy (the one
 * BullMQ needs): reads still answer, writes (and scripts that write) are refused until memory is
 * freed or the limit raised.
 */
export function isRedisFull(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (/^OOM command not allowed/.test(e.message)) return true;
    // A MULTI whose queued write was refused OOM: ioredis's EXECABORT carries the refusals.
    const previous = (e as { previousErrors?: unknown }).previousErrors;
    if (Array.isArray(previous) && previous.some((p) => isRedisFull(p))) return true;
  }
  return false;
}

/**
 * Postgres SQLSTATEs of a lost or refused connection: class 08 (connection exception), 57P01-03
 * (the server shuts down, crashed, or is still starting), 53300 (no connection slot free).
 */
const PG_CONNECTION_STATE = /^(08...|57P0[123]|53300)$/;
/** node-postgres's own words when a connection it holds ends under a query. */
const PG_CONNECTION_LOST = /^Connection terminated|^Client has encountered a connection error|not queryable/;

/**
 * Whether `err` (or an error it wraps: Drizzle puts the driver's error in `cause`) says the
 * Postgres server cannot be reached, rather than that a statement failed.
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  let sawQuery = false;
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    // src/db/pg/open-pg.ts names so a failure to get a connection from its pool.
    if (e.name === "DatabaseUnreachableError") return true;
    if (e.name === "DrizzleQueryError") sawQuery = true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && PG_CONNECTION_STATE.test(code)) return true;
    // Under a query of ours, a lost connection is the database's (not some other peer's).
    if (sawQuery && (PG_CONNECTION_LOST.test(e.message) || isSocketError(code))) return true;
  }
  return false;
}

/** A connection's failure (refused, reset, timed out…) rather than an answer's. */
export function isSocketError(code: unknown): boolean {
  return (
    typeof code === "string" &&
    /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/.test(code)
  );
}

/**
 * Recognises the sandbox's `SandboxUnavailableError` by name, so that the API answers 503
 * SANDBOX_UNAVAILABLE without importing the sandbox. It stays a plain Error (not an AppError):
 * the worker retries it, while an AppError ends a job.
 */
export function asSandboxUnavailable(err: unknown): AppError | undefined {
  if (!(err instanceof Error) || err.name !== "SandboxUnavailableError") return undefined;
  return new AppError("SANDBOX_UNAVAILABLE", err.message);
}

/** Formats a path of keys and indexes as `input.file_path` / `allow[2]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/** SQLite's SQLITE_FULL, Postgres's 53100 (disk_full): the database's disk. */
const DATABASE_FULL = /^(SQLITE_FULL|53100)$/;
/** The same, or the kernel's ENOSPC and EDQUOT (a file of the service's own). */
const STORAGE_FULL = /^(SQLITE_FULL|53100|ENOSPC|EDQUOT)$/;

/**
 * Whether `err` (or an error it wraps) says the disk under the database or DATA_DIR is full. A
 * database write that failed so was not made (a SQLite or Postgres transaction is undone whole):
 * it can be done again once an operator frees space.
 */
export function isStorageFull(err: unknown, codes: RegExp = STORAGE_FULL): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && codes.test(code)) return true;
  }
  return false;
}

/**
 * A worker's step that failed for this waits and is done again (database-outage.ts): the
 * database away, or its disk full. Either way the step's write was not made. (A sandbox's ENOSPC
 * is not one: it is the sandbox's failure, retried or reported as such.)
 */
export function waitsForDatabase(err: unknown): boolean {
  return isDatabaseUnreachable(err) || isStorageFull(err, DATABASE_FULL);
}

/**
 * The job's attempt is no longer this run's (another worker took the job over while this one
 * was frozen or cut off): the run sends and writes nothing more (its sandbox operations, its task
 * writes, its MCP requests; service/worker/attempt-fence.ts). Never answered to a caller: the run
 * stops and leaves the job to the attempt that holds it.
 */
export class AttemptSupersededError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId}: another worker took the job over; this attempt sends nothing`);
    this.name = "AttemptSupersededError";
  }
}
