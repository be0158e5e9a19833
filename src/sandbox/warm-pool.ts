/**
 * Warm sandboxes: hardened containers started ahead of need, their executor already dialled in
 * and proven, so a new session's first call skips `docker create` + `start` + executor start-up.
 *
 * A container's mounts are fixed when it is created, but a session's workspace (a loop-mounted
 * volume with quotas on) and its tenant's skills are known only when the session claims it. So a
 * warm container mounts two empty slot directories at /workspace and /skills with `rslave`
 * propagation, under a pool directory that is a shared mount: claiming bind-mounts the session's
 * workspace and the tenant's skills (read-only) onto the slot directories on the host, and the
 * mounts propagate into the running container. The executor's run directory (socket, secret,
 * identity table) is the slot's own: identities are the same for every session, and the hello
 * (the per-container secret) happened when the container started. The claimed container is
 * renamed to the session's name; when the session stops, it is removed (its mounts are the
 * slot's) and the session's next start is on the same workspace (another warm container, or an
 * ordinary start).
 *
 * Needs root (bind mounts) and runc: gVisor does not propagate host mounts into a running sandbox.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, readdir, rm } from "node:fs/promises";
import { basename, join } from "node:path";
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
import { SANDBOX_WORKSPACE } from "./sandbox.js";
import type { SandboxLogger } from "./sandbox-logger.js";

const execFileP = promisify(execFile);
const TOOL_ENV = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C" };

/** Marks a warm container (unclaimed or claimed): it has no session label of its own. */
export const LABEL_WARM = "toolshed.warm";

/** The container paths a claim can fill (the spec's read-only mounts must be among these). */
export const WARM_MOUNTS = ["/skills"] as const;

export interface WarmSlot {
  /** The container's name until claimed. */
  name: string;
  dir: string;
  workspace: string;
  mounts: Record<string, string>;
  runDir: string;
  socketPath: string;
  configPath: string;
  channel: ExecutorChannel;
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
  /** The executor's config file for a new slot (secret and identities); returns the secret. */
  writeConfig: (configPath: string) => Promise<string>;
  startTimeoutMs: number;
  logger: SandboxLogger;
}

export class WarmPool {
  private readonly ready: WarmSlot[] = [];
  /** Containers being started (awaited by `close`, which then removes them). */
  private readonly filling = new Set<Promise<void>>();
  private closed = false;
  private prepared?: Promise<void>;
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

  /** Bind-mounts the session's workspace and read-only mounts onto a taken slot's directories. */
  async fill(slot: WarmSlot, workspaceDir: string, readOnly: { hostPath: string; containerPath: string }[]) {
    await mount(["--bind", workspaceDir, slot.workspace]);
    for (const [i, m] of readOnly.entries()) {
      const target = slot.mounts[m.containerPath];
      if (!target) throw new Error(`a warm sandbox cannot mount ${m.containerPath}`);
      // Read-only before it enters the shared tree: a remount does not propagate, a new mount
      // carries its flags. Made on a staging directory outside the shared tree, then moved in.
      const stage = join(`${this.opts.dir}-stage`, `${basename(slot.dir)}-${i}`);
      await mkdir(stage, { recursive: true });
      await mount(["--bind", m.hostPath, stage]);
      await mount(["-o", "remount,bind,ro,nosuid,nodev", stage]);
      await mount(["--move", stage, target]);
      await rm(stage, { recursive: true, force: true });
    }
  }

  /** A claimed slot's container is gone: its mounts and directory go too. */
  async release(slot: WarmSlot): Promise<void> {
    await slot.channel.close().catch(() => undefined);
    for (const target of [slot.workspace, ...Object.values(slot.mounts)])
      await umountAll(target).catch(() => undefined);
    await rm(slot.dir, { recursive: true, force: true }).catch(() => undefined);
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
    if (this.prepared && !opts.keepMounts) await umountAll(this.opts.dir).catch(() => undefined);
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
    const configPath = join(runDir, EXECUTOR_CONFIG_NAME);
    const socketPath = join(runDir, EXECUTOR_SOCKET_NAME);
    const token = await this.opts.writeConfig(configPath);
    const channel = await ExecutorChannel.listen(socketPath, token);
    const base = this.opts.spec({ name: "", workspace, runDir, mounts });
    const name = `${base.name}-warm-${id}`;
    this.names.add(name);
    try {
      const spec = warmSpec({ ...base, name, sessionId: "warm", tenantId: "warm" }, workspace, mounts);
      const container = await this.opts.docker.createContainer(spec);
      await container.start();
      await channel.ready(this.opts.startTimeoutMs);
    } catch (err) {
      this.names.delete(name);
      await removeContainer(this.opts.docker, name).catch(() => undefined);
      await channel.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    return { name, dir, workspace, mounts, runDir, socketPath, configPath, channel };
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
