import { chown, mkdir, rm } from "node:fs/promises";
import type { Socket } from "node:net";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Dockerode from "dockerode";
import {
  ensureContainerRunning,
  listServiceContainers,
  removeContainer,
  stopContainer,
} from "./container-ops.js";
import { LABEL_SESSION, type SandboxLimits } from "./container-spec.js";
import { DockerSandbox, type ExecutorRunner } from "./docker-sandbox.js";
import { ExecutorChannel, ExecutorUnreachableError, RequestNotDeliveredError } from "./executor-channel.js";
import { startIdleReaper } from "./idle-reaper.js";
import {
  SANDBOX_UID,
  type Sandbox,
  type SandboxProvider,
  SandboxUnavailableError,
  type SessionSandboxSpec,
} from "./sandbox.js";
import { assertSessionId, assertSocketPathFits, type SessionPaths, sessionPaths } from "./session-paths.js";

/** The logger shape the provider needs (pino fits). */
export interface SandboxLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Options of the Docker provider; nothing here is read from the environment. */
export interface DockerSandboxProviderOptions {
  docker?: Dockerode;
  /** Holds `workspaces/<sessionId>` and `run/<key>/host.sock`; keep it short (unix socket paths). */
  dataDir: string;
  /** Stable id of this deployment; labels its containers so a restart can find and reap them. */
  serviceId: string;
  image: string;
  limits: SandboxLimits;
  /** A container with no call for this long is stopped; the next call starts it again. */
  idleStopMs: number;
  logger?: SandboxLogger;
  /** Host directory holding executor.mjs; defaults to `./executor/` next to this module. */
  executorDir?: string;
  /** How long a started container may take until its executor dials in; default 20 s. */
  startTimeoutMs?: number;
}

interface LiveSession extends SessionPaths {
  tenantId: string;
  channel: ExecutorChannel;
  sandbox: DockerSandbox;
  inflight: number;
  lastUsed: number;
}

// A warm session's executor always keeps a spare dialled; waiting longer means it is gone.
const WARM_TAKE_MS = 2_000;
const SERVICE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const silent: SandboxLogger = { info: () => {}, warn: () => {} };

/**
 * One hardened container per session, created on first use, stopped when idle and started again
 * on the same workspace. Calls go to the in-container executor over a unix socket, so a warm
 * call makes no Docker API request and no `docker exec`.
 */
export class DockerSandboxProvider implements SandboxProvider, ExecutorRunner {
  private readonly docker: Dockerode;
  private readonly dataDir: string;
  private readonly executorDir: string;
  private readonly logger: SandboxLogger;
  private readonly startTimeoutMs: number;
  private readonly live = new Map<string, LiveSession>();
  private readonly starting = new Map<string, Promise<LiveSession>>();
  private readonly stopping = new Map<string, Promise<void>>();
  /** Sessions whose executor vanished: their container is stopped before it is started again. */
  private readonly unreachable = new Set<string>();
  private readonly stopReaper: () => void;

  constructor(private readonly opts: DockerSandboxProviderOptions) {
    if (!SERVICE_ID.test(opts.serviceId))
      throw new Error(`invalid serviceId ${JSON.stringify(opts.serviceId)}`);
    this.dataDir = resolve(opts.dataDir);
    assertSocketPathFits(this.dataDir);
    this.docker = opts.docker ?? new Dockerode();
    this.executorDir = resolve(opts.executorDir ?? fileURLToPath(new URL("./executor/", import.meta.url)));
    this.logger = opts.logger ?? silent;
    this.startTimeoutMs = opts.startTimeoutMs ?? 20_000;
    this.stopReaper = startIdleReaper({
      idleStopMs: opts.idleStopMs,
      sessions: () => this.live.entries(),
      stop: (sessionId) => this.stop(sessionId),
      onError: (sessionId, err) => this.logger.warn({ sessionId, err }, "idle stop failed"),
    });
  }

  async acquire(spec: SessionSandboxSpec): Promise<Sandbox> {
    return (await this.ensure(spec)).sandbox;
  }

  async withExecutor<T>(spec: SessionSandboxSpec, use: (sock: Socket) => Promise<T>): Promise<T> {
    let restarted = false;
    for (let attempt = 0; attempt < 4; attempt++) {
      const session = await this.ensure(spec);
      session.inflight++;
      try {
        const sock = await session.channel.take(restarted ? this.startTimeoutMs : WARM_TAKE_MS);
        return await use(sock);
      } catch (err) {
        // A connection that died before the ack ran nothing: take another (or find out it is gone).
        if (err instanceof RequestNotDeliveredError) continue;
        if (!(err instanceof ExecutorUnreachableError)) throw err;
        if (restarted) throw new SandboxUnavailableError("sandbox executor unreachable", { cause: err });
        // The container died or was stopped behind our back: forget it and start it again once.
        this.logger.warn({ sessionId: spec.sessionId }, "sandbox executor unreachable; restarting");
        restarted = true;
        this.forget(spec.sessionId, session);
        this.unreachable.add(spec.sessionId);
      } finally {
        session.inflight--;
        session.lastUsed = Date.now();
      }
    }
    throw new SandboxUnavailableError("sandbox executor keeps dropping requests");
  }

  async stop(sessionId: string): Promise<void> {
    await this.starting.get(sessionId)?.catch(() => {});
    const session = this.live.get(sessionId);
    const name = sessionPaths(this.dataDir, this.opts.serviceId, sessionId).containerName;
    this.live.delete(sessionId);
    const stopped = (async () => {
      await session?.channel.close();
      await stopContainer(this.docker, name, 2);
    })().finally(() => this.stopping.delete(sessionId));
    this.stopping.set(sessionId, stopped);
    await stopped;
  }

  async remove(sessionId: string): Promise<void> {
    assertSessionId(sessionId);
    await this.stop(sessionId);
    const paths = sessionPaths(this.dataDir, this.opts.serviceId, sessionId);
    await removeContainer(this.docker, paths.containerName);
    await rm(paths.workspaceDir, { recursive: true, force: true });
    await rm(paths.runDir, { recursive: true, force: true });
  }

  async reapOrphans(liveSessionIds: Set<string>): Promise<number> {
    const containers = await listServiceContainers(this.docker, this.opts.serviceId);
    let reaped = 0;
    for (const info of containers) {
      const sessionId = info.Labels?.[LABEL_SESSION];
      if (sessionId !== undefined && liveSessionIds.has(sessionId)) continue;
      const session = sessionId === undefined ? undefined : this.live.get(sessionId);
      if (sessionId !== undefined && session) this.forget(sessionId, session);
      await removeContainer(this.docker, info.Id);
      reaped++;
    }
    if (reaped > 0) this.logger.info({ reaped }, "reaped orphaned sandbox containers");
    return reaped;
  }

  /** Readiness: the engine answers. */
  async ping(): Promise<void> {
    await this.docker.ping();
  }

  /**
   * Stops the idle timer and the running containers. With `stopContainers: false` it only lets go
   * of them (a process handing over to its successor, which adopts them on the next acquire).
   */
  async close(opts: { stopContainers?: boolean } = {}): Promise<void> {
    this.stopReaper();
    await Promise.allSettled([...this.starting.values()]);
    if (opts.stopContainers === false) {
      for (const [sessionId, session] of this.live) this.forget(sessionId, session);
      return;
    }
    await Promise.allSettled([...this.live.keys()].map((id) => this.stop(id)));
    await Promise.allSettled([...this.stopping.values()]);
  }

  private ensure(spec: SessionSandboxSpec): Promise<LiveSession> {
    const session = this.live.get(spec.sessionId);
    if (session) {
      // Sessions are tenant-scoped upstream; this keeps a mix-up from crossing tenants here too.
      if (session.tenantId !== spec.tenantId) {
        return Promise.reject(
          new SandboxUnavailableError(`session ${spec.sessionId} belongs to another tenant`),
        );
      }
      return Promise.resolve(session);
    }
    let starting = this.starting.get(spec.sessionId);
    if (!starting) {
      starting = this.start(spec).finally(() => this.starting.delete(spec.sessionId));
      this.starting.set(spec.sessionId, starting);
    }
    return starting;
  }

  private async start(spec: SessionSandboxSpec): Promise<LiveSession> {
    assertSessionId(spec.sessionId);
    await this.stopping.get(spec.sessionId)?.catch(() => {});
    const paths = sessionPaths(this.dataDir, this.opts.serviceId, spec.sessionId);
    await this.prepareDirs(paths);
    const channel = await ExecutorChannel.listen(paths.socketPath);
    try {
      // Docker may still report a container whose executor just died as running; or the
      // executor is wedged. Either way, a stop makes the start below a real one.
      if (this.unreachable.delete(spec.sessionId)) await stopContainer(this.docker, paths.containerName, 1);
      await ensureContainerRunning(this.docker, {
        name: paths.containerName,
        image: this.opts.image,
        serviceId: this.opts.serviceId,
        sessionId: spec.sessionId,
        tenantId: spec.tenantId,
        workspaceHostDir: paths.workspaceDir,
        runHostDir: paths.runDir,
        executorHostDir: this.executorDir,
        readOnlyMounts: spec.readOnlyMounts,
        limits: this.opts.limits,
      });
      await channel.ready(this.startTimeoutMs);
    } catch (err) {
      await channel.close();
      if (err instanceof SandboxUnavailableError) throw err;
      throw new SandboxUnavailableError(`sandbox for session ${spec.sessionId} did not start`, {
        cause: err,
      });
    }
    const session: LiveSession = {
      ...paths,
      tenantId: spec.tenantId,
      channel,
      sandbox: new DockerSandbox(spec, this),
      inflight: 0,
      lastUsed: Date.now(),
    };
    this.live.set(spec.sessionId, session);
    return session;
  }

  /** Drops a live session whose executor vanished, so the next call starts it again. */
  private forget(sessionId: string, session: LiveSession): void {
    if (this.live.get(sessionId) === session) this.live.delete(sessionId);
    session.channel.close().catch(() => {});
  }

  private async prepareDirs(paths: SessionPaths): Promise<void> {
    await mkdir(paths.runDir, { recursive: true, mode: 0o755 });
    await mkdir(paths.workspaceDir, { recursive: true });
    try {
      await chown(paths.workspaceDir, SANDBOX_UID, SANDBOX_UID);
    } catch (err) {
      // Without root the host cannot chown; the workspace then needs to be writable by uid 1000.
      this.logger.warn({ err, dir: paths.workspaceDir }, "could not chown the workspace to the sandbox user");
    }
  }
}
