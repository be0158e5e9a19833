/** Names this process in job attempts, so an operator can tell which worker ran what. */
import { hostname } from "node:os";

const started = Date.now().toString(36);

/** `host/pid/start`: the start time tells a restarted process from its predecessor with the same pid. */
export function workerIdentity(): string {
  return `${hostname()}/${process.pid}/${started}`;
}
