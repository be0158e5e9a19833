import type { Socket } from "node:net";
import {
  type Acks,
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
  FileOpOptions,
  FileStat,
  ReadFileResult,
  RoundTripObserver,
  Sandbox,
  SandboxOp,
  SandboxProcess,
  SessionSandboxSpec,
  SpawnRequest,
} from "./sandbox.js";

/** Hands out one executor connection of a session, restarting its container when needed. */
export interface ExecutorRunner {
  /** `use` gets the connection and the acknowledgements to send along with its request. */
  withExecutor<T>(spec: SessionSandboxSpec, use: (sock: Socket, acks: Acks) => Promise<T>): Promise<T>;
  /** The boot id of the session's executor, starting the container when needed. */
  executorBootId(spec: SessionSandboxSpec, live: boolean): Promise<string>;
  /** Queues an acknowledgement for the session's executor (sent with its next request). */
  acknowledge(sessionId: string, jobId: string): void;
  /**
   * True where the runtime lets one uid read another's /proc/<pid>/environ (Debian's gVisor of
   * 2022 does): secrets must then not travel in a process's environment.
   */
  readonly environmentsVisible: boolean;
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
    private readonly onRoundTrip?: RoundTripObserver,
  ) {
    this.sessionId = spec.sessionId;
  }

  /** One request to the executor, timed for the observer (connection wait and restarts included). */
  private async trip<T>(op: SandboxOp, use: (sock: Socket, acks: Acks) => Promise<T>): Promise<T> {
    const started = performance.now();
    let ok = false;
    try {
      const result = await this.runner.withExecutor(this.spec, use);
      ok = true;
      return result;
    } finally {
      this.onRoundTrip?.(op, (performance.now() - started) / 1000, ok);
    }
  }

  exec(req: ExecRequest): Promise<ExecResult> {
    if (req.argv.length === 0) return Promise.reject(new TypeError("exec needs a non-empty argv"));
    // The tenant's variables first: the call's own (cwd reporting, a tool's) win over them.
    const env = this.spec.settings?.env;
    const withEnv = env ? { ...req, env: { ...env, ...req.env } } : req;
    return this.trip("exec", (sock, acks) => execOverSocket(sock, withEnv, acks));
  }

  readFile(path: string, opts?: { maxBytes?: number } & FileOpOptions): Promise<ReadFileResult> {
    const maxBytes = opts?.maxBytes ?? DEFAULT_READ_MAX_BYTES;
    return this.trip("read", (sock, acks) =>
      readFileOverSocket(sock, path, maxBytes, { key: opts?.callKey, acks }),
    );
  }

  writeFile(path: string, data: Buffer | string, opts?: FileOpOptions): Promise<FileStat> {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    return this.trip("write", (sock, acks) =>
      writeFileOverSocket(sock, path, bytes, { key: opts?.callKey, acks }),
    );
  }

  stat(path: string, opts?: FileOpOptions): Promise<FileStat | null> {
    return this.trip("stat", (sock, acks) => statOverSocket(sock, path, { key: opts?.callKey, acks }));
  }

  realPath(path: string, opts?: FileOpOptions): Promise<string> {
    return this.trip("realpath", (sock, acks) =>
      realPathOverSocket(sock, path, { key: opts?.callKey, acks }),
    );
  }

  /** The process lives on its own connection; an idle stop of the container ends it (`lost`). */
  spawnProcess(req: SpawnRequest): Promise<SandboxProcess> {
    if (req.argv.length === 0) return Promise.reject(new TypeError("spawnProcess needs a non-empty argv"));
    if (this.runner.environmentsVisible && Object.keys(req.env ?? {}).length > 0) {
      return Promise.reject(
        new Error(
          "This sandbox runtime lets the agent read other processes' environments, so a process with environment variables (an MCP server's secrets) is not started here; use the runc runtime.",
        ),
      );
    }
    return this.runner.withExecutor(this.spec, (sock) => spawnOverSocket(sock, req));
  }

  instanceId(opts: { live?: boolean } = {}): Promise<string> {
    return this.runner.executorBootId(this.spec, opts.live !== false);
  }

  acknowledge(jobId: string): void {
    this.runner.acknowledge(this.sessionId, jobId);
  }
}
