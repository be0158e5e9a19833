import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import type { Socket } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Dockerode from "dockerode";
import {
  containerExists,
  containerState,
  ensureContainerRunning,
  listServiceContainers,
  removeContainer,
  stopContainer,
} from "./container-ops.js";
import { LABEL_SESSION, type SandboxLimits } from "./container-spec.js";
import { DockerSandbox, type ExecutorRunner } from "./docker-sandbox.js";
import { ExecutorChannel, ExecutorUnreachableError, RequestNotDeliveredError } from "./executor-channel.js";
import { type Acks, pingOverSocket } from "./executor-client.js";
import { executorMount } from "./executor-source.js";
import { weakHostSettings } from "./host-hardening.js";
import { startIdleReaper } from "./idle-reaper.js";
import { writePasswdFiles } from "./passwd-files.js";
import {
  DEFAULT_UID_BASE,
  identitiesFrom,
  type RoundTripObserver,
  type Sandbox,
  type SandboxIdentities,
  type SandboxProvider,
  SandboxUnavailableError,
  type SessionSandboxSettings,
  type SessionSandboxSpec,
} from "./sandbox.js";
import type { SandboxLogger } from "./sandbox-logger.js";
import { RuntimeCheck } from "./sandbox-runtime.js";
import { assertSessionId, assertSocketPathFits, type SessionPaths, sessionPaths } from "./session-paths.js";
import {
  labelledSlot,
  type Placement,
  slotIdentities,
  slotOfUid,
  UID_SLOT_WIDTH,
  UidSlotAllocator,
  type UidSlots,
  uidSlotsProblem,
} from "./uid-slots.js";
import { WARM_MOUNTS, WarmPool, type WarmSlot, warmPoolProblem } from "./warm-pool.js";
import { reownWorkspace } from "./workspace-owner.js";
import { createWorkspaceVolumes, type WorkspaceQuota, type WorkspaceVolumes } from "./workspace-volume.js";

export type { SandboxLogger } from "./sandbox-logger.js";

/** Options of the Docker provider; nothing here is read from the environment. */
export interface DockerSandboxProviderOptions {
  docker?: Dockerode;
  /**
   * Without `docker`: the engine of DOCKER_HOST, each request failed after this long without an
   * answer (a stalled engine must not hold a call or a stop forever). Default 30 s.
   */
  engineTimeoutMs?: number;
  /** Holds `workspaces/<sessionId>` and `run/<key>/host.sock`; keep it short (unix socket paths). */
  dataDir: string;
  /** Stable id of this deployment; labels its containers so a restart can find and reap them. */
  serviceId: string;
  image: string;
  limits: SandboxLimits;
  /** A container with no call for this long is stopped; the next call starts it again. */
  idleStopMs: number;
  logger?: SandboxLogger;
  /**
   * Host directory holding executor.mjs; defaults to `./executor/` next to this module. Mounted
   * only when the image carries no executor or another version (see executor-source.ts).
   */
  executorDir?: string;
  /** How long a started container may take until its executor dials in; default 20 s. */
  startTimeoutMs?: number;
  /** The sandbox uids; default: laid out from 100000 (no host user has them). */
  identities?: SandboxIdentities;
  /**
   * A host uid range per container instead of `identities` for all (uid-slots.ts; needs root to
   * re-own workspaces). Absent: every sandbox of the host runs under `identities`.
   */
  uidSlots?: UidSlots;
  /** Size and inodes of each /workspace (a loop-mounted image; needs root); default 1 GiB and
   * 100,000. "off": plain host directories, no limit. */
  workspaceQuota?: WorkspaceQuota | "off";
  /** An OCI runtime registered with the engine, e.g. `runsc` (gVisor); default: the engine's. */
  runtime?: string;
  /** Hardened containers kept started for new sessions (warm-pool.ts); default 0. */
  warmPool?: number;
  /** Told of each request to an executor and how long its answer took (metrics). */
  onRoundTrip?: RoundTripObserver;
}

interface LiveSession extends SessionPaths {
  tenantId: string;
  channel: ExecutorChannel;
  sandbox: DockerSandbox;
  inflight: number;
  lastUsed: number;
  /** Jobs whose results are stored, told to the executor with the next request. */
  acks: Acks;
  /** A claimed warm container's book-keeping, run once after its first request (`settle`). */
  pending?: () => Promise<void>;
  /** `pending`'s latest start, armed by the first request; the first result's ack runs it sooner. */
  settleTimer?: NodeJS.Timeout;
}

// More than this many unsent acknowledgements: the oldest are dropped (the executor ages them out).
const MAX_PENDING_ACKS = 256;

// The claimed warm container's book-keeping (mount and rename processes) waits for the first
// result to be stored (its ack) so it does not compete with it for the CPU; this long at most
// when no ack comes (a failed call, a request outside a job).
const SETTLE_LATEST_MS = 250;

// A warm session's executor always keeps a spare dialled; waiting longer means it is gone.
const WARM_TAKE_MS = 2_000;
// Removed sessions remembered so that no late call starts their sandbox again (ids, a few MB at most).
const REMOVED_KEPT = 10_000;
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
  /**
   * Sessions removed (deleted) by this process: a call still in flight when its session is deleted
   * (a kill, or the restart after its executor went away) does not start them again; it would
   * start a new container on the workspace being removed, left running until the orphan reaper.
   * Only an explicit `acquire` does. The latest REMOVED_KEPT are kept (such calls end in seconds).
   */
  private readonly removed = new Set<string>();
  private readonly stopReaper: () => void;
  private readonly identities: SandboxIdentities;
  private readonly slots: UidSlotAllocator | undefined;
  /** Running containers found at start that no call has used yet: the idle reaper stops them too. */
  private readonly inherited = new Map<string, { inflight: number; lastUsed: number }>();
  private readonly volumes: WorkspaceVolumes | null;
  private readonly runtimeCheck: RuntimeCheck;
  private readonly pool: WarmPool | undefined;
  /** Sessions running in a claimed warm container (removed, not just stopped, when they stop). */
  private readonly warm = new Map<string, WarmSlot>();
  /** Whether to mount this process's executor over the image's; looked up at the first start. */
  private executorMount?: Promise<string | undefined>;

  constructor(private readonly opts: DockerSandboxProviderOptions) {
    if (!SERVICE_ID.test(opts.serviceId))
      throw new Error(`invalid serviceId ${JSON.stringify(opts.serviceId)}`);
    this.dataDir = resolve(opts.dataDir);
    assertSocketPathFits(this.dataDir);
    this.docker = opts.docker ?? new Dockerode({ timeout: opts.engineTimeoutMs ?? 30_000 });
    this.executorDir = resolve(opts.executorDir ?? fileURLToPath(new URL("./executor/", import.meta.url)));
    this.logger = opts.logger ?? silent;
    this.startTimeoutMs = opts.startTimeoutMs ?? 20_000;
    this.identities = opts.identities ?? identitiesFrom(DEFAULT_UID_BASE);
    this.slots = this.createSlots();
    this.adoptRunning().catch((err: unknown) =>
      this.logger.warn({ err }, "listing running sandboxes failed"),
    );
    this.volumes = createWorkspaceVolumes(opts.workspaceQuota, {
      dataDir: this.dataDir,
      uid: this.identities.agent,
      workspaceDir: (id) => sessionPaths(this.dataDir, opts.serviceId, id).workspaceDir,
      logger: this.logger,
    });
    const weak = weakHostSettings();
    if (weak.length > 0)
      this.logger.warn(
        { set: weak },
        `this host's kernel settings let one sandbox harm the others (planted links in shared /tmp; host-wide file, inotify and pipe counters): set ${weak.join(" ")} (sysctl; scripts/services.sh does, docs/sandbox.md says why)`,
      );
    this.runtimeCheck = new RuntimeCheck(this.docker, opts.runtime);
    this.pool = this.createPool();
    this.pool?.start();
    this.stopReaper = startIdleReaper({
      idleStopMs: opts.idleStopMs,
      sessions: () => [...this.live.entries(), ...this.inherited.entries()],
      stop: (sessionId) => this.stop(sessionId),
      onError: (sessionId, err) => this.logger.warn({ sessionId, err }, "idle stop failed"),
    });
  }

  /** Warm containers ready now (for tests and metrics). */
  get warmReady(): number {
    return this.pool?.size ?? 0;
  }

  private createSlots(): UidSlotAllocator | undefined {
    const slots = this.opts.uidSlots;
    if (!slots) return undefined;
    const problem = uidSlotsProblem(slots);
    if (problem) throw new Error(problem);
    // Re-owning a workspace moved to another range is a chown of every file: root's alone.
    if (process.getuid?.() !== 0) {
      this.logger.warn({}, "uid slots need root (workspaces are re-owned); every sandbox shares one range");
      return undefined;
    }
    return new UidSlotAllocator(this.docker, slots);
  }

  private createPool(): WarmPool | undefined {
    const size = this.opts.warmPool ?? 0;
    if (size <= 0) return undefined;
    const problem = warmPoolProblem({ uid: process.getuid?.(), runtime: this.opts.runtime });
    if (problem) {
      this.logger.warn({ problem }, "warm sandboxes are off");
      return undefined;
    }
    return new WarmPool({
      docker: this.docker,
      dir: join(this.dataDir, "pool"),
      size,
      startTimeoutMs: this.startTimeoutMs,
      logger: this.logger,
      writeConfig: (configPath, ids) => this.writeExecutorConfig(configPath, ids),
      // With uid slots the slot belongs to the container: a session claiming it takes its range.
      ...(this.slots ? { placement: (name, runDir, ws) => this.placeWarm(name, runDir, ws) } : {}),
      ...(this.volumes ? { volumes: this.volumes } : {}),
      spec: (slot) => ({
        name: `toolshed-${this.opts.serviceId}`,
        image: this.opts.image,
        serviceId: this.opts.serviceId,
        workspaceHostDir: slot.workspace,
        runHostDir: slot.runDir,
        limits: this.opts.limits,
        identities: this.identities,
        ...(this.opts.runtime ? { runtime: this.opts.runtime } : {}),
      }),
    });
  }

  async acquire(spec: SessionSandboxSpec): Promise<Sandbox> {
    // A new use of the id (a removed session's id is not reused by the service): it starts afresh.
    this.removed.delete(spec.sessionId);
    return (await this.ensure(spec)).sandbox;
  }

  get environmentsVisible(): boolean {
    return this.opts.runtime === "runsc";
  }

  async withExecutor<T>(spec: SessionSandboxSpec, use: (sock: Socket, acks: Acks) => Promise<T>): Promise<T> {
    let restarted = false;
    for (let attempt = 0; attempt < 4; attempt++) {
      const session = await this.ensure(spec);
      session.inflight++;
      try {
        const sock = await session.channel.take(restarted ? this.startTimeoutMs : WARM_TAKE_MS);
        return await use(sock, session.acks.splice(0));
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
        if (session.pending) this.settleLater(spec.sessionId, session);
      }
    }
    throw new SandboxUnavailableError("sandbox executor keeps dropping requests");
  }

  /** `live`: a round trip, not the last hello, so a container that just died cannot look alive. */
  async executorBootId(spec: SessionSandboxSpec, live: boolean): Promise<string> {
    if (!live) {
      const known = (await this.ensure(spec)).channel.bootId;
      if (known) return known;
    }
    const started = performance.now();
    let ok = false;
    try {
      const id = await this.withExecutor(spec, (sock, acks) => pingOverSocket(sock, acks));
      ok = true;
      return id;
    } finally {
      this.opts.onRoundTrip?.("ping", (performance.now() - started) / 1000, ok);
    }
  }

  acknowledge(sessionId: string, jobId: string): void {
    const session = this.live.get(sessionId);
    if (!session) return;
    if (session.settleTimer) this.settle(sessionId, session);
    const acks = session.acks;
    acks.push(jobId);
    if (acks.length > MAX_PENDING_ACKS) acks.splice(0, acks.length - MAX_PENDING_ACKS);
  }

  async stop(sessionId: string): Promise<void> {
    this.inherited.delete(sessionId);
    await this.starting.get(sessionId)?.catch(() => {});
    const session = this.live.get(sessionId);
    const paths = sessionPaths(this.dataDir, this.opts.serviceId, sessionId);
    this.live.delete(sessionId);
    const slot = this.warm.get(sessionId);
    this.warm.delete(sessionId);
    if (session) {
      session.pending = undefined;
      clearTimeout(session.settleTimer);
    }
    const stopped = (async () => {
      await session?.channel.close();
      // A claimed warm container mounts the slot's directories: it goes (by id: it may not be
      // renamed yet), and so do its mounts.
      if (slot) {
        await slot.settled;
        await removeContainer(this.docker, slot.id);
        await this.pool?.release(slot);
      } else await stopContainer(this.docker, paths.containerName, 2);
      // A volume is mounted exactly while its container may run.
      await this.volumes?.unmount(paths.workspaceDir);
    })().finally(() => this.stopping.delete(sessionId));
    this.stopping.set(sessionId, stopped);
    await stopped;
  }

  async remove(sessionId: string): Promise<void> {
    assertSessionId(sessionId);
    this.removed.add(sessionId);
    if (this.removed.size > REMOVED_KEPT) this.removed.delete(this.removed.values().next().value!);
    await this.stop(sessionId);
    const paths = sessionPaths(this.dataDir, this.opts.serviceId, sessionId);
    await removeContainer(this.docker, paths.containerName);
    await this.volumes?.destroy(sessionId, paths.workspaceDir);
    await rm(paths.workspaceDir, { recursive: true, force: true });
    await rm(paths.runDir, { recursive: true, force: true });
  }

  async reapOrphans(liveSessionIds: Set<string>): Promise<number> {
    const containers = await listServiceContainers(this.docker, this.opts.serviceId);
    let reaped = 0;
    for (const info of containers) {
      const sessionId = info.Labels?.[LABEL_SESSION];
      if (sessionId !== undefined && liveSessionIds.has(sessionId)) continue;
      // This process's own warm containers, unclaimed or claimed by a live session (by id: a
      // claimed one keeps its warm name until its first result). Another process's (one that
      // died, maybe between a claim and the rename) are removed: their sessions start again.
      const name = info.Names?.[0]?.replace(/^\//, "") ?? "";
      if (
        this.pool?.names.has(name) ||
        [...this.warm.entries()].some(([s, slot]) => liveSessionIds.has(s) && slot.id === info.Id)
      )
        continue;
      const session = sessionId === undefined ? undefined : this.live.get(sessionId);
      if (sessionId !== undefined && session) this.forget(sessionId, session);
      await removeContainer(this.docker, info.Id);
      reaped++;
    }
    if (reaped > 0) this.logger.info({ reaped }, "reaped orphaned sandbox containers");
    const volumes = (await this.volumes?.reap(liveSessionIds)) ?? 0;
    if (volumes > 0) this.logger.info({ volumes }, "reaped orphaned workspace volumes");
    return reaped;
  }

  /** The engine's own ID (stable across restarts): names the worker host by default. */
  async engineId(): Promise<string> {
    const info = (await this.docker.info()) as { ID?: string; Name?: string };
    return info.ID || info.Name || "unknown";
  }

  liveCount(): number {
    return this.live.size;
  }

  knownInstance(sessionId: string): string | undefined {
    return this.live.get(sessionId)?.channel.bootId;
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
      // Claimed warm containers keep their mounts (unmounting would reach inside them).
      await this.pool?.close({ keepMounts: true });
      return;
    }
    await Promise.allSettled([...this.live.keys()].map((id) => this.stop(id)));
    await Promise.allSettled([...this.stopping.values()]);
    await this.pool?.close();
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
    if (this.removed.has(spec.sessionId))
      throw new SandboxUnavailableError(`the sandbox of session ${spec.sessionId} was removed`);
    await this.stopping.get(spec.sessionId)?.catch(() => {});
    const paths = sessionPaths(this.dataDir, this.opts.serviceId, spec.sessionId);
    this.inherited.delete(spec.sessionId);
    // A dead process's warm slots may still mount this session's volume: unmounted first.
    await this.pool?.settledLeftovers();
    const claimed = await this.claimWarm(spec, paths);
    if (claimed) return claimed;
    const { token, placement } = await this.prepareDirs(paths, spec.sessionId, spec.settings?.diskBytes);
    const channel = await ExecutorChannel.listen(paths.socketPath, token).catch((err: unknown) => {
      placement.release?.();
      throw err;
    });
    try {
      // Docker may still report a container whose executor just died as running; or the
      // executor is wedged. Either way, a stop makes the start below a real one.
      if (this.unreachable.delete(spec.sessionId)) await stopContainer(this.docker, paths.containerName, 1);
      await this.runtimeCheck.ensure();
      this.executorMount ??= executorMount(this.docker, this.opts.image, this.executorDir, this.logger).catch(
        (err: unknown) => {
          this.executorMount = undefined;
          throw err;
        },
      );
      const executorHostDir = await this.executorMount;
      await ensureContainerRunning(this.docker, {
        name: paths.containerName,
        image: spec.settings?.image ?? this.opts.image,
        serviceId: this.opts.serviceId,
        sessionId: spec.sessionId,
        tenantId: spec.tenantId,
        workspaceHostDir: paths.workspaceDir,
        runHostDir: paths.runDir,
        ...(executorHostDir ? { executorHostDir } : {}),
        readOnlyMounts: spec.readOnlyMounts,
        limits: tenantLimits(this.opts.limits, spec.settings),
        identities: placement.identities,
        ...(placement.uidSlot !== undefined ? { uidSlot: placement.uidSlot } : {}),
        ...(placement.accountFiles ? { accountFiles: placement.accountFiles } : {}),
        ...(this.opts.runtime ? { runtime: this.opts.runtime } : {}),
      });
      // The container now holds its slot by its label.
      placement.release?.();
      await channel.ready(this.startTimeoutMs);
    } catch (err) {
      placement.release?.();
      await channel.close();
      throw notStarted(spec.sessionId, err);
    }
    const session: LiveSession = {
      ...paths,
      tenantId: spec.tenantId,
      channel,
      sandbox: new DockerSandbox(spec, this, this.opts.onRoundTrip),
      inflight: 0,
      lastUsed: Date.now(),
      acks: [],
    };
    this.live.set(spec.sessionId, session);
    return session;
  }

  /**
   * A session takes a warm container. Undefined when none is ready or this session cannot use one
   * (then it starts the ordinary way, as after a failed claim).
   *
   * A new session (no workspace on this host yet) adopts the slot's blank volume (a rename) and
   * gets its read-only mounts bound (one `mount` each): no Docker request, no mkfs or loop mount.
   * A returning one (its container stopped) has its workspace mounted over the slot's, after a
   * check that no container of its own is left. Renaming the container and showing the workspace
   * at the session's host path wait until after the first result (`settle`).
   */
  private async claimWarm(spec: SessionSandboxSpec, paths: SessionPaths): Promise<LiveSession | undefined> {
    const leftover = this.warm.get(spec.sessionId);
    if (leftover) {
      // Its executor vanished (unreachable): the warm container goes; an ordinary start follows.
      this.warm.delete(spec.sessionId);
      await leftover.settled;
      await removeContainer(this.docker, leftover.id);
      await this.pool?.release(leftover);
      return undefined;
    }
    if (!this.pool || this.pool.size === 0) return undefined;
    // Warm containers have the default image, limits and volume size; a tenant's own start cold
    // (its environment is sent with each command, so it does not matter here).
    if (hasOwnContainerSettings(spec.settings)) return undefined;
    const mounts = spec.readOnlyMounts ?? [];
    if (mounts.some((m) => !(WARM_MOUNTS as readonly string[]).includes(m.containerPath))) return undefined;
    // Every start makes the workspace directory before its container: none means no container.
    const fresh = !existsSync(paths.workspaceDir);
    if (!fresh && (await containerExists(this.docker, paths.containerName))) return undefined;
    // A returning session's files carry its own uid range, not the warm container's.
    if (!fresh && this.slots) return undefined;
    const slot = this.pool.take();
    if (!slot) return undefined;
    let adopted = false;
    let later: typeof mounts = [];
    try {
      await mkdir(paths.workspaceDir, { recursive: true });
      if (fresh && slot.image && this.volumes) adopted = await this.volumes.adopt(slot.image, spec.sessionId);
      if (adopted) delete slot.image;
      else {
        await this.prepareWorkspace(paths, spec.sessionId, slot.identities ?? this.identities);
        await this.pool.bindWorkspace(slot, paths.workspaceDir);
      }
      // An empty directory (a tenant without skills) looks the same as the slot's empty one
      // until something is added, so its mount waits until after the first result too.
      const empty = await Promise.all(mounts.map((m) => isEmptyDir(m.hostPath)));
      later = mounts.filter((_, i) => empty[i]);
      await this.pool.mountReadOnly(
        slot,
        mounts.filter((_, i) => !empty[i]),
      );
    } catch (err) {
      this.logger.warn({ err, sessionId: spec.sessionId }, "claiming a warm sandbox failed; starting one");
      await removeContainer(this.docker, slot.id).catch(() => undefined);
      await this.pool.release(slot);
      return undefined;
    }
    this.warm.set(spec.sessionId, slot);
    const session: LiveSession = {
      ...paths,
      runDir: slot.runDir,
      socketPath: slot.socketPath,
      configPath: slot.configPath,
      tenantId: spec.tenantId,
      channel: slot.channel,
      sandbox: new DockerSandbox(spec, this, this.opts.onRoundTrip),
      inflight: 0,
      lastUsed: Date.now(),
      acks: [],
      pending: async () => {
        try {
          await this.pool?.mountReadOnly(slot, later);
        } catch (err) {
          // Without them the session would miss what its tenant adds: its next call starts anew.
          this.logger.warn(
            { err, sessionId: spec.sessionId },
            "mounting a claimed warm sandbox's directories failed",
          );
          this.forget(spec.sessionId, session);
          return;
        }
        if (adopted) await this.pool?.showWorkspace(slot, paths.workspaceDir);
        await this.docker.getContainer(slot.id).rename({ name: paths.containerName });
      },
    };
    this.live.set(spec.sessionId, session);
    return session;
  }

  /** After the first request: at the first result's ack, or `SETTLE_LATEST_MS` later at most. */
  private settleLater(sessionId: string, session: LiveSession): void {
    session.settleTimer ??= setTimeout(() => this.settle(sessionId, session), SETTLE_LATEST_MS).unref();
  }

  /**
   * A claimed warm container's book-keeping, off the first call's path: the session's name (for
   * operators; this process knows it by id) and its workspace at the host path. A worker that dies
   * before this leaves a warm-named container with no session label: the next worker's
   * `reapOrphans` removes it, and the session starts again on the same volume (adopted at claim).
   */
  private settle(sessionId: string, session: LiveSession): void {
    clearTimeout(session.settleTimer);
    session.settleTimer = undefined;
    const pending = session.pending;
    session.pending = undefined;
    const slot = this.warm.get(sessionId);
    if (!pending || !slot) return;
    slot.settled = pending().catch((err: unknown) =>
      this.logger.warn({ err, sessionId }, "renaming a claimed warm sandbox failed"),
    );
  }

  /** Drops a live session whose executor vanished, so the next call starts it again. */
  private forget(sessionId: string, session: LiveSession): void {
    if (this.live.get(sessionId) === session) this.live.delete(sessionId);
    session.channel.close().catch(() => {});
  }

  /**
   * Makes the run directory (root's: the container sees it read-only) with the executor's
   * config, whose secret stays the same across restarts of the container and of this process,
   * and the workspace owned by the agent (with quotas: its volume mounted). Returns the secret.
   */
  private async prepareDirs(
    paths: SessionPaths,
    sessionId: string,
    diskBytes?: number,
  ): Promise<{ token: string; placement: Placement }> {
    await mkdir(paths.runDir, { recursive: true, mode: 0o755 });
    await mkdir(paths.workspaceDir, { recursive: true });
    // The volume first: its files tell which uid range the workspace carries.
    await this.volumes?.mount(sessionId, paths.workspaceDir, diskBytes);
    const placement = await this.place(paths, sessionId);
    try {
      const token = await this.writeExecutorConfig(paths.configPath, placement.identities);
      await this.prepareWorkspace(paths, sessionId, placement.identities, diskBytes);
      return { token, placement };
    } catch (err) {
      placement.release?.();
      throw err;
    }
  }

  /**
   * The uids the session's container runs under. Uid slots on: a running container keeps what it
   * was started with; otherwise the container's labelled slot, else the one the workspace's files
   * carry, when no other container holds it; else a free one, and the files are re-owned to it
   * (a workspace moved here from another host, or made before slots), so that no file of the
   * workspace is owned by another sandbox's range.
   */
  private async place(paths: SessionPaths, sessionId: string): Promise<Placement> {
    if (!this.slots) return { identities: this.identities };
    const { slots } = this.slots;
    // Engine requests before the container's own: a stalled or stopped engine is told as such.
    const existing = await containerState(this.docker, paths.containerName).catch((err: unknown) => {
      throw notStarted(sessionId, err);
    });
    const labelled = labelledSlot(slots, existing?.labels);
    if (existing?.running && labelled === undefined) return { identities: this.identities };
    const owner = (await stat(paths.workspaceDir)).uid;
    const held = existing?.running
      ? { slot: labelled!, release: () => {} }
      : await this.slots
          .hold(paths.containerName, labelled ?? slotOfUid(slots, owner))
          .catch((err: unknown) => {
            throw notStarted(sessionId, err);
          });
    try {
      const identities = slotIdentities(slots, held.slot);
      if (!existing?.running && owner !== identities.agent) {
        const entries = await reownWorkspace(
          paths.workspaceDir,
          (id) => this.rangeBase(id),
          identities.agent,
        );
        if (entries > 0)
          this.logger.info(
            { sessionId, from: owner, to: identities.agent, entries },
            "re-owned the workspace to its sandbox's uid range",
          );
      }
      const accountFiles = await writePasswdFiles(paths.runDir, identities);
      return { identities, uidSlot: held.slot, accountFiles, release: held.release };
    } catch (err) {
      held.release();
      throw err;
    }
  }

  /** A new warm container's slot (any free one), its account files, and its blank volume's owner. */
  private async placeWarm(name: string, runDir: string, workspace: string): Promise<Placement> {
    const held = await this.slots!.hold(name);
    try {
      const identities = slotIdentities(this.slots!.slots, held.slot);
      // The blank volume (or directory) was made for the shared range's agent.
      await chown(workspace, identities.agent, identities.agent);
      const accountFiles = await writePasswdFiles(runDir, identities);
      return { identities, uidSlot: held.slot, accountFiles, release: held.release };
    } catch (err) {
      held.release();
      throw err;
    }
  }

  /** The base of the sandbox uid range holding `id` (a slot's or the shared one), if any. */
  private rangeBase(id: number): number | undefined {
    const slots = this.slots?.slots;
    const slot = slots && slotOfUid(slots, id);
    if (slots && slot !== undefined) return slots.base + UID_SLOT_WIDTH * slot;
    const shared = this.identities.agent;
    return id >= shared && id < shared + UID_SLOT_WIDTH ? shared : undefined;
  }

  /** The executor's secret (kept across restarts) and identity table, root's and 0400; the secret. */
  private async writeExecutorConfig(configPath: string, ids = this.identities): Promise<string> {
    const token = await this.executorToken(configPath);
    const { agent, editor, mcp, mcpBase, mcpCount, readerBase, readerCount, readerGroup } = ids;
    const config = {
      token,
      identities: {
        agent: { uid: agent, gid: agent },
        editor: { uid: editor, gid: agent },
        // The agent's group: an MCP server may work in the (group-writable) workspace; its uid
        // alone keeps the agent from signalling it or reading its environment. One uid of the
        // pool per running server, so that what a server leaves running can be killed exactly.
        mcp: { uid: mcp, gid: agent, base: mcpBase, count: mcpCount },
        readers: { base: readerBase, count: readerCount, gid: readerGroup },
      },
      // gVisor's statx refuses a flag coreutils passes: commands preload a shim (statx-compat.c).
      ...(this.opts.runtime === "runsc" ? { statxCompat: true } : {}),
    };
    const tmp = `${configPath}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(config), { mode: 0o400 });
    await chmod(tmp, 0o400);
    await rename(tmp, configPath);
    return token;
  }

  /** The workspace: with quotas its volume mounted; owned by the agent, setgid, group-writable. */
  private async prepareWorkspace(
    paths: SessionPaths,
    sessionId: string,
    ids: SandboxIdentities,
    diskBytes?: number,
  ): Promise<void> {
    const { agent } = ids;
    // The bare directory stays root's (unwritable); the chown below is then the volume's root.
    await this.volumes?.mount(sessionId, paths.workspaceDir, diskBytes);
    try {
      await chown(paths.workspaceDir, agent, agent);
      // setgid and group-writable: what is made inside stays the agent's group, which the
      // editor identity (accept_edits) writes through.
      await chmod(paths.workspaceDir, 0o2775);
    } catch (err) {
      // Without root the host cannot chown; the workspace then needs to be writable by the agent uid.
      this.logger.warn({ err, dir: paths.workspaceDir }, "could not chown the workspace to the sandbox user");
    }
  }

  private async executorToken(configPath: string): Promise<string> {
    try {
      const old = JSON.parse(await readFile(configPath, "utf8")) as { token?: unknown };
      if (typeof old.token === "string" && old.token.length >= 32) return old.token;
    } catch {
      // No config yet (or unreadable): a new secret.
    }
    return randomBytes(32).toString("hex");
  }

  /** Running containers of this service from an earlier process: stopped when idle like ours. */
  private async adoptRunning(): Promise<void> {
    const now = Date.now();
    for (const info of await listServiceContainers(this.docker, this.opts.serviceId)) {
      const sessionId = info.Labels?.[LABEL_SESSION];
      if (info.State !== "running" || sessionId === undefined || this.live.has(sessionId)) continue;
      this.inherited.set(sessionId, { inflight: 0, lastUsed: now });
    }
  }
}

/**
 * Whether `dir` shows nothing (a missing one counts as not empty: its mount then fails loudly).
 * Hidden entries (a skills directory's version store, always there) name nothing a command looks
 * for, so such a directory looks like the slot's empty one until its mount after the first result.
 */
async function isEmptyDir(dir: string): Promise<boolean> {
  return (await readdir(dir).catch(() => [""])).every((name) => name.startsWith("."));
}

/** Settings that shape the container or its volume (not only the commands' environment). */
function hasOwnContainerSettings(own: SessionSandboxSettings | undefined): boolean {
  return Boolean(own?.image || own?.memoryBytes || own?.nanoCpus || own?.pids || own?.diskBytes);
}

/** The platform's limits with the tenant's own where it set them (checked against caps upstream). */
function tenantLimits(base: SandboxLimits, own: SessionSandboxSettings | undefined): SandboxLimits {
  return {
    ...base,
    ...(own?.memoryBytes ? { memoryBytes: own.memoryBytes } : {}),
    ...(own?.nanoCpus ? { nanoCpus: own.nanoCpus } : {}),
    ...(own?.pids ? { pids: own.pids } : {}),
  };
}

/** A start that failed, as the caller is told it: the sandbox is unavailable (and why, if the engine). */
function notStarted(sessionId: string, err: unknown): SandboxUnavailableError {
  if (err instanceof SandboxUnavailableError) return err;
  const code = engineUnreachable(err);
  const why = code ? `: the Docker engine is unreachable (${code})` : "";
  return new SandboxUnavailableError(`sandbox for session ${sessionId} did not start${why}`, { cause: err });
}

/**
 * The error code when `err` is a failure to reach the Docker engine at all (its socket gone or
 * refusing: the engine is stopped), rather than an answer of the engine's.
 */
function engineUnreachable(err: unknown): string | undefined {
  const { code, syscall } = (err ?? {}) as { code?: unknown; syscall?: unknown };
  if (syscall !== "connect" || typeof code !== "string") return undefined;
  return /^(ENOENT|ECONNREFUSED|ECONNRESET|EACCES|ETIMEDOUT)$/.test(code) ? code : undefined;
}
