/** The structured logger (pino); built by the composition root from the configured level. */
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

/** The service logger at `level`, to stdout or `destination`. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, redact: REDACT };
  return destination ? pino(options, destination) : pino(options);
}
