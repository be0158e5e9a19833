/**
 * Warm sandboxes: hardened containers started ahead of need, their executor already dialled in
 * and proven, so a new session's first call skips `docker create` + `start` + executor start-up.
 *
 * A container's mounts are fixed when it is created, but the tenant's skills are known only when
 * a session claims it. So a warm container mounts slot directories at /workspace and /skills with
 * `rslave` propagation, under a pool directory that is a shared mount: claiming bind-mounts onto
 * the slot directories on the host, and the mounts propagate into the running container.
 * With quotas on, the slot's /workspace is already a blank volume (mounted before the container
 * was created): a new session adopts it by renaming its image file, so the claim makes no mount
 * for it; a returning session's own workspace is bind-mounted over it. The tenant's skills are a
 * read-only bind staged once per directory, so a claim binds them with one `mount`. The
 * executor's run directory (socket, secret, identity table) is the slot's own: identities are the
 * container's, not the session's (with uid slots each warm container holds its own range from
 * before its creation, and a session claiming it takes that range), and the hello (the per-container secret) happened when the container
 * started. Renaming the container to the session's name (and showing the workspace at the
 * session's host path) waits until after the first result (the provider's `settle`); the
 * provider knows a claimed container by its id meanwhile. When the session stops, its container is
 * removed (its mounts are the slot's) and the session's next start is on the same workspace
 * (another warm container, or an ordinary start).
 *
 * Needs root (bind mounts) and runc: gVisor does not propagate host mounts into a running sandbox.
 */
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type Dockerode from "dockerode";
import { removeContainer } from "./container-ops.js";
import {
  buildContainerSpec,
  type ContainerSpecInput,
  EXECUTOR_CONFIG_NAME,
  EXECUTOR_SOCKET_NAME,
  LABEL_SESSION,
  LABEL_TENANT,
} from "./container-spec.js";
import { ExecutorChannel } from "./executor-channel.js";
import { execOverSocket } from "./executor-client.js";
import { SANDBOX_WORKSPACE, type SandboxIdentities } from "./sandbox.js";
import type { SandboxLogger } from "./sandbox-logger.js";
import type { Placement } from "./uid-slots.js";

const execFileP = promisify(execFile);
const TOOL_ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C" };

/** Marks a warm container (unclaimed or claimed): it has no session label of its own. */
export const LABEL_WARM = "toolshed.warm";

/** The container paths a claim can fill (the spec's read-only mounts must be among these). */
export const WARM_MOUNTS = ["/skills"] as const;

export interface WarmSlot {
  /** The container's name until claimed (and renamed). */
  name: string;
  /** The container's id: what a claimed container is known by until it is renamed. */
  id: string;
  dir: string;
  /** The blank volume mounted at `workspace` until a session adopts it (quotas on). */
  image?: string;
  /** The claim's book-keeping after the first result (rename, host view); awaited before removal. */
  settled?: Promise<void>;
  workspace: string;
  mounts: Record<string, string>;
  runDir: string;
  socketPath: string;
  configPath: string;
  channel: ExecutorChannel;
  /** The container's own uids (uid slots on); absent: the provider's shared ones. */
  identities?: SandboxIdentities;
}

export interface WarmPoolOptions {
  docker: Dockerode;
  /** `<dataDir>/pool`; keep it short (unix socket paths). */
  dir: string;
  size: number;
  /** The hardened spec of every container, without its session's parts (filled per slot). */
  spec: (slot: {
    name: string;
    workspace: string;
    runDir: string;
    mounts: Record<string, string>;
  }) => Omit<ContainerSpecInput, "sessionId" | "tenantId">;
  /** Blank workspace volumes (quotas on); without, a slot's /workspace is a plain directory. */
  volumes?: {
    mountBlank(dir: string): Promise<string>;
    dropBlank(image?: string): Promise<void>;
  };
  /**
   * The uids of a new container when each has its own range (uid slots): held before the
   * container exists, released by the pool once it does (its label holds it then). Absent: the
   * spec's identities for every container.
   */
  placement?: (name: string, runDir: string, workspace: string) => Promise<Placement>;
  /** The executor's config file for a new slot (secret and identities); returns the secret. */
  writeConfig: (configPath: string, identities?: SandboxIdentities) => Promise<string>;
  startTimeoutMs: number;
  logger: SandboxLogger;
}

export class WarmPool {
  private readonly ready: WarmSlot[] = [];
  /** Containers being started (awaited by `close`, which then removes them). */
  private readonly filling = new Set<Promise<void>>();
  private closed = false;
  private prepared?: Promise<void>;
  /** Read-only binds of host directories (tenants' skills), made once, bound into slots at claim. */
  private readonly staged = new Map<string, Promise<string>>();
  /** Names of this pool's unclaimed containers (the orphan reaper leaves them alone). */
  readonly names = new Set<string>();

  constructor(private readonly opts: WarmPoolOptions) {}

  /** Starts filling in the background. */
  start(): void {
    this.refill();
  }

  /** A ready slot, or undefined (then the caller starts a container the ordinary way). */
  take(): WarmSlot | undefined {
    const slot = this.ready.shift();
    if (slot) this.names.delete(slot.name);
    this.refill();
    return slot;
  }

  get size(): number {
    return this.ready.length;
  }

  /** Resolves once leftovers of a dead process are cleaned (before a session mounts a volume). */
  async settledLeftovers(): Promise<void> {
    await this.prepare().catch(() => undefined);
  }

  /** Bind-mounts a session's own workspace (over the slot's blank volume, if any). */
  async bindWorkspace(slot: WarmSlot, workspaceDir: string): Promise<void> {
    await mount(["--bind", workspaceDir, slot.workspace]);
  }

  /** Shows the slot's /workspace at the session's host path (after the first result). */
  async showWorkspace(slot: WarmSlot, workspaceDir: string): Promise<void> {
    await mount(["--bind", slot.workspace, workspaceDir]);
  }

  /** Binds the read-only mounts onto a taken slot's directories: one `mount` each once staged. */
  async mountReadOnly(slot: WarmSlot, readOnly: { hostPath: string; containerPath: string }[]) {
    for (const m of readOnly) {
      const target = slot.mounts[m.containerPath];
      if (!target) throw new Error(`a warm sandbox cannot mount ${m.containerPath}`);
      // A bind of a read-only mount carries its flags into the shared tree and the container.
      await mount(["--bind", await this.stage(m.hostPath), target]);
    }
  }

  /**
   * A read-only bind of `hostPath` outside the shared tree. Read-only before it enters the tree:
   * a remount does not propagate, a new mount carries its flags. Kept: the directory's later
   * changes show through it (skills added later appear in running sandboxes).
   */
  private stage(hostPath: string): Promise<string> {
    let staged = this.staged.get(hostPath);
    if (!staged) {
      const stage = join(
        `${this.opts.dir}-stage`,
        createHash("sha256").update(hostPath).digest("hex").slice(0, 16),
      );
      staged = (async () => {
        await mkdir(stage, { recursive: true });
        await umountAll(stage);
        await mount(["--bind", hostPath, stage]);
        await mount(["-o", "remount,bind,ro,nosuid,nodev", stage]);
        return stage;
      })();
      staged.catch(() => this.staged.delete(hostPath));
      this.staged.set(hostPath, staged);
    }
    return staged;
  }

  /** A claimed slot's container is gone: its mounts, directory and unadopted volume go too. */
  async release(slot: WarmSlot): Promise<void> {
    await slot.channel.close().catch(() => undefined);
    for (const target of [slot.workspace, ...Object.values(slot.mounts)])
      await umountAll(target).catch(() => undefined);
    await rm(slot.dir, { recursive: true, force: true }).catch(() => undefined);
    if (slot.image) await this.opts.volumes?.dropBlank(slot.image).catch(() => undefined);
  }

  /** Removes the unclaimed containers and their slots. */
  async close(opts: { keepMounts?: boolean } = {}): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.filling]);
    const slots = this.ready.splice(0);
    await Promise.allSettled(
      slots.map(async (s) => {
        await removeContainer(this.opts.docker, s.name);
        await this.release(s);
      }),
    );
    this.names.clear();
    if (opts.keepMounts) return;
    const stages = [...this.staged.values()];
    this.staged.clear();
    for (const s of await Promise.allSettled(stages))
      if (s.status === "fulfilled") await umountAll(s.value).catch(() => undefined);
    if (this.prepared) await umountAll(this.opts.dir).catch(() => undefined);
  }

  private refill(): void {
    if (this.closed) return;
    while (this.ready.length + this.filling.size < this.opts.size) {
      const p: Promise<void> = this.startOne()
        .then(async (slot) => {
          if (this.closed) await this.discard(slot);
          else this.ready.push(slot);
        })
        .catch((err: unknown) => {
          if (this.closed) return;
          this.opts.logger.warn({ err }, "warm sandbox did not start");
          // Not at once: an engine that refuses keeps refusing for a while.
          setTimeout(() => this.refill(), 5000).unref();
        })
        .finally(() => this.filling.delete(p));
      this.filling.add(p);
    }
  }

  private async discard(slot: WarmSlot): Promise<void> {
    this.names.delete(slot.name);
    await removeContainer(this.opts.docker, slot.name).catch(() => undefined);
    await this.release(slot);
  }

  /** The pool directory as a shared mount (propagation source); leftovers of a dead process cleaned. */
  private prepare(): Promise<void> {
    this.prepared ??= (async () => {
      await mkdir(this.opts.dir, { recursive: true, mode: 0o755 });
      for (const entry of await readdir(this.opts.dir).catch(() => [] as string[])) {
        const dir = join(this.opts.dir, entry);
        for (const sub of ["ws", ...WARM_MOUNTS.map(slotMountName)])
          await umountAll(join(dir, sub)).catch(() => undefined);
        await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      }
      const stages = `${this.opts.dir}-stage`;
      for (const entry of await readdir(stages).catch(() => [] as string[])) {
        await umountAll(join(stages, entry)).catch(() => undefined);
        await rm(join(stages, entry), { recursive: true, force: true }).catch(() => undefined);
      }
      // A dead process's blank volumes (their slots just unmounted); a session's adopted one is named for it.
      await this.opts.volumes?.dropBlank();
      if (!(await isMountPoint(this.opts.dir))) await mount(["--bind", this.opts.dir, this.opts.dir]);
      await mount(["--make-rshared", this.opts.dir]);
    })().catch((err: unknown) => {
      this.prepared = undefined;
      throw err;
    });
    return this.prepared;
  }

  private async startOne(): Promise<WarmSlot> {
    await this.prepare();
    const id = randomBytes(6).toString("hex");
    const dir = join(this.opts.dir, id);
    const runDir = join(dir, "run");
    const workspace = join(dir, "ws");
    const mounts = Object.fromEntries(WARM_MOUNTS.map((p) => [p, join(dir, slotMountName(p))]));
    await mkdir(runDir, { recursive: true, mode: 0o755 });
    await mkdir(workspace, { mode: 0o755 });
    for (const m of Object.values(mounts)) await mkdir(m, { mode: 0o755 });
    // Before the container exists: its /workspace is then the volume itself, no propagation needed.
    const image = await this.opts.volumes?.mountBlank(workspace).catch(async (err: unknown) => {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    });
    const configPath = join(runDir, EXECUTOR_CONFIG_NAME);
    const socketPath = join(runDir, EXECUTOR_SOCKET_NAME);
    const base = this.opts.spec({ name: "", workspace, runDir, mounts });
    const name = `${base.name}-warm-${id}`;
    const placement = await this.opts.placement?.(name, runDir, workspace).catch(async (err: unknown) => {
      await umountAll(workspace).catch(() => undefined);
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      if (image) await this.opts.volumes?.dropBlank(image).catch(() => undefined);
      throw err;
    });
    const channel = await this.opts
      .writeConfig(configPath, placement?.identities)
      .then((token) => ExecutorChannel.listen(socketPath, token))
      .catch((err: unknown) => {
        placement?.release?.();
        throw err;
      });
    this.names.add(name);
    let containerId: string;
    try {
      const own = placement && {
        identities: placement.identities,
        ...(placement.uidSlot !== undefined ? { uidSlot: placement.uidSlot } : {}),
        ...(placement.accountFiles ? { accountFiles: placement.accountFiles } : {}),
      };
      const spec = warmSpec(
        { ...base, ...own, name, sessionId: "warm", tenantId: "warm" },
        workspace,
        mounts,
      );
      const container = await this.opts.docker.createContainer(spec).finally(() => placement?.release?.());
      containerId = container.id;
      await container.start();
      await channel.ready(this.opts.startTimeoutMs);
      // One command through the executor and its fork server: a session's first one is then as
      // quick as its later ones (code paths warmed in the container, not on the session's time).
      await execOverSocket(await channel.take(this.opts.startTimeoutMs), {
        argv: ["true"],
        timeoutMs: this.opts.startTimeoutMs,
        maxOutputBytes: 1024,
      });
    } catch (err) {
      this.names.delete(name);
      await removeContainer(this.opts.docker, name).catch(() => undefined);
      await channel.close().catch(() => undefined);
      await umountAll(workspace).catch(() => undefined);
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      if (image) await this.opts.volumes?.dropBlank(image).catch(() => undefined);
      throw err;
    }
    return {
      name,
      id: containerId,
      dir,
      ...(image ? { image } : {}),
      workspace,
      mounts,
      runDir,
      socketPath,
      configPath,
      channel,
      ...(placement ? { identities: placement.identities } : {}),
    };
  }
}

/** The hardened spec with the warm differences: slot mounts with `rslave`, no session labels. */
function warmSpec(
  input: ContainerSpecInput,
  workspace: string,
  mounts: Record<string, string>,
): Dockerode.ContainerCreateOptions {
  const spec = buildContainerSpec({
    ...input,
    readOnlyMounts: Object.entries(mounts).map(([containerPath, hostPath]) => ({ hostPath, containerPath })),
  });
  const binds = (spec.HostConfig?.Binds ?? []).map((b) => {
    if (b === `${workspace}:${SANDBOX_WORKSPACE}:rw`) return `${workspace}:${SANDBOX_WORKSPACE}:rw,rslave`;
    const slot = Object.entries(mounts).find(([c, h]) => b === `${h}:${c}:ro`);
    return slot ? `${b},rslave` : b;
  });
  const labels: Record<string, string> = { ...spec.Labels, [LABEL_WARM]: "1" };
  delete labels[LABEL_SESSION];
  delete labels[LABEL_TENANT];
  return { ...spec, Labels: labels, HostConfig: { ...spec.HostConfig, Binds: binds } };
}

function slotMountName(containerPath: string): string {
  return `m${containerPath.replaceAll("/", "_")}`;
}

async function mount(args: string[]): Promise<void> {
  await execFileP("mount", args, { env: TOOL_ENV });
}

/** Unmounts everything stacked at `target` (lazily: a process may still hold it). */
async function umountAll(target: string): Promise<void> {
  for (let i = 0; i < 4 && (await isMountPoint(target)); i++)
    await execFileP("umount", ["-l", target], { env: TOOL_ENV });
}

async function isMountPoint(path: string): Promise<boolean> {
  try {
    await execFileP("mountpoint", ["-q", path], { env: TOOL_ENV });
    return true;
  } catch {
    return false;
  }
}

/** For tests and operators: whether warm pools can run here (root, and not gVisor). */
export function warmPoolProblem(env: {
  uid: number | undefined;
  runtime: string | undefined;
}): string | null {
  if (env.uid !== 0) return `warm sandboxes bind-mount workspaces and need root (uid is ${env.uid})`;
  if (env.runtime === "runsc") return "warm sandboxes need runc: gVisor does not see mounts made after start";
  return null;
}
