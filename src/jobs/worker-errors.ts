/**
 * The log line of a BullMQ worker's `error` event. BullMQ reports every failed reconnect as an
 * error: during a Redis outage that is several lines a second per worker, at error level, while
 * the outage itself is logged once by the command connection ("redis connection lost"). A
 * connection error is logged once (warn) until the worker's connection is ready again; any
 * other error is logged each time.
 */
import { isSocketError } from "../errors.js";
import type { Logger } from "../log.js";

/** ioredis's own words for a command on a connection that is not up. */
const NOT_CONNECTED = /Connection is closed|Stream isn't writeable|max retries per request/i;

export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return isSocketError((err as { code?: unknown }).code) || NOT_CONNECTED.test(err.message);
}

/** The `error` listener for a worker on `connection`. */
export function workerErrorLog(
  logger: Logger,
  connection: { on(event: "ready", listener: () => void): unknown },
  msg: string,
): (err: Error) => void {
  let quiet = false;
  connection.on("ready", () => {
    quiet = false;
  });
  return (err) => {
    if (!isConnectionError(err)) {
      logger.error({ err }, msg);
      return;
    }
    if (quiet) return;
    quiet = true;
    logger.warn({ err: err.message }, `${msg}: redis unreachable (not logged again until it is back)`);
  };
}
