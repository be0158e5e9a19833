import { createHash } from "node:crypto";
import { join } from "node:path";
import { EXECUTOR_CONFIG_NAME, EXECUTOR_SOCKET_NAME } from "./container-spec.js";

/** sun_path is 108 bytes including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 107;

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Session ids become directory and container names: refuse anything but a safe alphabet. */
export function assertSessionId(sessionId: string): void {
  if (!SESSION_ID.test(sessionId))
    throw new Error(`invalid session id for a sandbox: ${JSON.stringify(sessionId)}`);
}

/** The host paths and container name of one session under a provider's data directory. */
export interface SessionPaths {
  containerName: string;
  workspaceDir: string;
  runDir: string;
  socketPath: string;
  /** The executor's secret and identities (mode 0400, root's). */
  configPath: string;
}

/** Short, fixed-length key so socket paths stay under the unix limit whatever the session id. */
function key(sessionId: string): string {
  return createHash("sha256").update(sessionId).digest("hex").slice(0, 16);
}

/** The container name for a session (stable across restarts, unique per service). */
export function containerNameFor(serviceId: string, sessionId: string): string {
  return `toolshed-${serviceId}-${sessionId.slice(0, 40)}-${key(sessionId).slice(0, 8)}`;
}

/** Paths for `sessionId`; the caller has checked the id. */
export function sessionPaths(dataDir: string, serviceId: string, sessionId: string): SessionPaths {
  const runDir = join(dataDir, "run", key(sessionId));
  return {
    containerName: containerNameFor(serviceId, sessionId),
    workspaceDir: join(dataDir, "workspaces", sessionId),
    runDir,
    socketPath: join(runDir, EXECUTOR_SOCKET_NAME),
    configPath: join(runDir, EXECUTOR_CONFIG_NAME),
  };
}

/** Throws when `dataDir` is too long for the session sockets it would hold. */
export function assertSocketPathFits(dataDir: string): void {
  const sample = sessionPaths(dataDir, "x", "x").socketPath;
  if (Buffer.byteLength(sample) > MAX_SOCKET_PATH_BYTES) {
    throw new Error(`dataDir is too long for unix sockets (${sample} > ${MAX_SOCKET_PATH_BYTES} bytes)`);
  }
}
