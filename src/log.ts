/**
 * The structured logger (pino); built by the composition root from the configured level. Every
 * line carries the context it was logged in (`withLogContext`): the request id and trace id of
 * the HTTP request, or the job id and trace id of the job a worker runs.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { type Logger, pino } from "pino";

export type { Logger };

/** Defence in depth: secrets never reach a log line even if some code logs a config or request. */
const REDACT = {
  paths: [
    "headers",
    "*.headers",
    "env",
    "*.env",
    "config.headers",
    "config.env",
    "req.headers.authorization",
    "authorization",
    "*.authorization",
  ],
  censor: "[redacted]",
};

/** What a log line is about, beyond its own fields. */
export interface LogContext {
  requestId?: string;
  /** W3C trace id (32 lowercase hex digits) of the request or of the job's submitting request. */
  traceId?: string;
  jobId?: string;
}

const context = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `ctx` added to the current context: every line logged within carries it. */
export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return context.run({ ...context.getStore(), ...ctx }, fn);
}

/** The context of the code running now (empty outside any request or job). */
export function currentLogContext(): LogContext {
  return context.getStore() ?? {};
}

/** The service logger at `level`, to stdout or `destination`. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, redact: REDACT, mixin: () => ({ ...context.getStore() }) };
  return destination ? pino(options, destination) : pino(options);
}
