/**
 * The structured logger (pino); built by the composition root from the configured level. A line
 * carries the context of the logger it was logged with (`withLogContext`): the request's logger
 * (the request id and trace id) or the job's (the job id and trace id), passed down explicitly
 * from the request's or the job's boundary. Not an `AsyncLocalStorage`: on Node 20 any ALS in the
 * process makes every promise pay async hooks (~4-8 % of the service's CPU per call, tput28);
 * test/architecture/no-async-context.test.ts keeps src/ free of them.
 */
import { type Logger, pino } from "pino";

export type { Logger };

/**
 * Defence in depth: secrets never reach a log line even if some code logs a config or request.
 * The keys censored wherever they are a line's own field or a field of one of its fields (an
 * `err`'s own properties included): `headers`, `env`, `authorization` (so `req.headers`,
 * `config.env`, ...). Done by `redactSecrets` as the line's formatter rather than by pino's `redact`
 * paths: their `*.` wildcard ran the redactor over every field of every line (~10 µs a line, several
 * lines per call: the access line, each job transition).
 */
const SECRET_KEYS = ["headers", "env", "authorization"] as const;
export const REDACTED = "[redacted]";

const isSecretKey = (key: string) => key === "headers" || key === "env" || key === "authorization";

/**
 * `fields` with every secret key (above) at its top or one level down censored; copied where
 * anything is censored, never changed (the caller may still use it). An object one level down is
 * copied with its prototype and property descriptors, so that an error is still serialized as one;
 * a secret key it inherits (a class's `headers` getter) is censored too, in case its `toJSON`
 * writes it (pino's paths missed that one).
 */
export function redactSecrets(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    const value = fields[key];
    let censored: unknown;
    // A field that is undefined is left out of the line: nothing to censor.
    if (isSecretKey(key)) censored = value === undefined ? undefined : REDACTED;
    else if (typeof value === "object" && value !== null) censored = censorOwnSecrets(value);
    else continue;
    if (censored === value) continue;
    out ??= { ...fields };
    out[key] = censored;
  }
  return out ?? fields;
}

function censorOwnSecrets(value: object): object {
  if (!SECRET_KEYS.some((k) => k in value)) return value;
  const descriptors = Object.getOwnPropertyDescriptors(value) as Record<string, PropertyDescriptor>;
  for (const k of SECRET_KEYS) {
    // An inherited one (a getter a `toJSON` may read) is shadowed, left out of the line's own keys.
    if (k in value)
      descriptors[k] = {
        value: REDACTED,
        enumerable: descriptors[k]?.enumerable ?? false,
        writable: true,
        configurable: true,
      };
  }
  return Object.create(Object.getPrototypeOf(value), descriptors) as object;
}

/** What a log line is about, beyond its own fields. */
export interface LogContext {
  requestId?: string;
  /** W3C trace id (32 lowercase hex digits) of the request or of the job's submitting request. */
  traceId?: string;
  jobId?: string;
}

/** Where a logger keeps its context (a child inherits its parent's through the prototype). */
const CONTEXT = Symbol("toolshed.logContext");
type WithContext = Logger & { [CONTEXT]?: LogContext };

/**
 * A logger like `logger` whose every line carries `ctx` over the parent's context. The fields are
 * added by the logger's mixin, under the line's own: a line that names its `jobId` itself does
 * not write it twice (as a child's bindings would). Made per job (and per logged request error),
 * so it is the parent itself one prototype down (pino's own children are made so), without
 * `child()`'s copying of bindings, serializers and formatters: nothing of those differs.
 */
export function withLogContext(logger: Logger, ctx: LogContext): Logger {
  const child = Object.create(logger) as WithContext;
  const merged: LogContext = { ...(logger as WithContext)[CONTEXT] };
  for (const key of Object.keys(ctx) as (keyof LogContext)[])
    if (ctx[key] !== undefined) merged[key] = ctx[key];
  child[CONTEXT] = merged;
  return child;
}

/** The context `logger`'s lines carry (empty for the service's own logger). */
export function logContextOf(logger: Logger): LogContext {
  return (logger as WithContext)[CONTEXT] ?? {};
}

/** The service logger at `level`, to stdout or `destination`. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    // A fresh object: pino merges the line's own fields into it.
    mixin: (_obj: object, _level: number, self: Logger) => ({ ...(self as WithContext)[CONTEXT] }),
    formatters: { log: redactSecrets },
  };
  const logger = destination ? pino(options, destination) : pino(options);
  // Bindings (a child's, or set later by `setBindings`) skip the formatters: censored as they are
  // bound. Children are made from their parent (`Object.create`), so they inherit both wrappers.
  const child = logger.child;
  logger.child = function (this: Logger, bindings, opts) {
    return child.call(this, redactSecrets(bindings), opts);
  } as typeof child;
  const setBindings = logger.setBindings;
  logger.setBindings = function (this: Logger, bindings) {
    setBindings.call(this, redactSecrets(bindings));
  };
  return logger;
}
