import type { Socket } from "node:net";
import {
  DEFAULT_READ_MAX_BYTES,
  execOverSocket,
  readFileOverSocket,
  realPathOverSocket,
  statOverSocket,
  writeFileOverSocket,
} from "./executor-client.js";
import { spawnOverSocket } from "./process-client.js";
import type {
  ExecRequest,
  ExecResult,
  FileStat,
  ReadFileResult,
  Sandbox,
  SandboxProcess,
  SessionSandboxSpec,
  SpawnRequest,
} from "./sandbox.js";

/** Hands out one executor connection of a session, restarting its container when needed. */
export interface ExecutorRunner {
  withExecutor<T>(spec: SessionSandboxSpec, use: (sock: Socket) => Promise<T>): Promise<T>;
}

/**
 * A session's sandbox as tools see it. It holds no container state of its own: each call asks the
 * provider for a connection, so a handle kept across an idle stop simply brings the container back.
 */
export class DockerSandbox implements Sandbox {
  readonly sessionId: string;

  constructor(
    private readonly spec: SessionSandboxSpec,
    private readonly runner: ExecutorRunner,
  ) {
    this.sessionId = spec.sessionId;
  }

  exec(req: ExecRequest): Promise<ExecResult> {
    if (req.argv.length === 0) return Promise.reject(new TypeError("exec needs a non-empty argv"));
    return this.runner.withExecutor(this.spec, (sock) => execOverSocket(sock, req));
  }

  readFile(path: string, opts?: { maxBytes?: number }): Promise<ReadFileResult> {
    const maxBytes = opts?.maxBytes ?? DEFAULT_READ_MAX_BYTES;
    return this.runner.withExecutor(this.spec, (sock) => readFileOverSocket(sock, path, maxBytes));
  }

  writeFile(path: string, data: Buffer | string): Promise<FileStat> {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    return this.runner.withExecutor(this.spec, (sock) => writeFileOverSocket(sock, path, bytes));
  }

  stat(path: string): Promise<FileStat | null> {
    return this.runner.withExecutor(this.spec, (sock) => statOverSocket(sock, path));
  }

  realPath(path: string): Promise<string> {
    return this.runner.withExecutor(this.spec, (sock) => realPathOverSocket(sock, path));
  }

  /** The process lives on its own connection; an idle stop of the container ends it (`lost`). */
  spawnProcess(req: SpawnRequest): Promise<SandboxProcess> {
    if (req.argv.length === 0) return Promise.reject(new TypeError("spawnProcess needs a non-empty argv"));
    return this.runner.withExecutor(this.spec, (sock) => spawnOverSocket(sock, req));
  }
}
