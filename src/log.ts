/** The structured logger (pino); built by the composition root from the configured level. */
import { type Logger, pino } from "pino";

export type { Logger };

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return destination ? pino({ level }, destination) : pino({ level });
}
