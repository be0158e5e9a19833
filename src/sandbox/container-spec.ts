import type Dockerode from "dockerode";
import {
  devptsMounts,
  HARDENING_DIGEST,
  SANDBOX_MASKED_PATHS,
  SANDBOX_SECURITY_OPT,
  SANDBOX_ULIMITS,
} from "./host-kernel-limits.js";
import { SANDBOX_HOME, SANDBOX_WORKSPACE, type SandboxIdentities } from "./sandbox.js";
import { hostPidsLimit } from "./sandbox-runtime.js";
import { LABEL_UID_SLOT } from "./uid-slots.js";

/** Where the executor sees the host's socket directory and its own code, inside the container. */
export const EXECUTOR_RUN_DIR = "/run/toolshed";
export const EXECUTOR_CODE_DIR = "/opt/toolshed";
export const EXECUTOR_SOCKET_NAME = "host.sock";
/** The executor's secret and identity table, readable by the container's uid 0 alone. */
export const EXECUTOR_CONFIG_NAME = "executor.json";
/**
 * All the executor keeps of root: starting processes as other uids, ending them, and handing
 * files an editor call created back to the agent.
 */
export const EXECUTOR_CAPS = ["SETUID", "SETGID", "KILL", "CHOWN"];

/** The labels a restarted service uses to find its containers. */
export const LABEL_SERVICE = "toolshed.service";
export const LABEL_SESSION = "toolshed.session";
export const LABEL_TENANT = "toolshed.tenant";
/** The digest of the container's kernel hardening (host-kernel-limits.ts) it was made with. */
export const LABEL_HARDENING = "toolshed.hardening";

/** Per-container resource limits. */
export interface SandboxLimits {
  memoryBytes: number;
  pids: number;
  /** CPU in units of 1e-9 CPUs (1 CPU = 1_000_000_000). */
  nanoCpus: number;
  /** Size of each of the tmpfs mounts (/tmp and the home); defaults to 256 MiB. */
  tmpfsBytes?: number;
}

/** Everything the hardened spec depends on; host paths are absolute. */
export interface ContainerSpecInput {
  name: string;
  image: string;
  serviceId: string;
  sessionId: string;
  tenantId: string;
  workspaceHostDir: string;
  runHostDir: string;
  /** A host copy of the executor mounted over the image's (see executor-source.ts); absent: the image's own. */
  executorHostDir?: string;
  readOnlyMounts?: { hostPath: string; containerPath: string }[];
  limits: SandboxLimits;
  identities: SandboxIdentities;
  /** The host uid range the identities come from (uid-slots.ts); absent: the one shared range. */
  uidSlot?: number;
  /** /etc/passwd and /etc/group naming a slot's identities (passwd-files.ts), bound read-only. */
  accountFiles?: { hostPath: string; containerPath: string }[];
  /** An OCI runtime registered with the engine (e.g. `runsc`); the engine's default otherwise. */
  runtime?: string;
}

const DEFAULT_TMPFS_BYTES = 256 * 1024 * 1024;
// /dev/shm is a tmpfs too: sized here rather than by the engine's default, and memory-accounted.
const SHM_BYTES = 64 * 1024 * 1024;
const IPC_SYSCTLS = { "kernel.shm_rmid_forced": "1", "kernel.msgmni": "16" };

/**
 * The create options of a session container: the executor as uid 0 with four capabilities and
 * everything else under unprivileged uids, no new privileges, read-only root with tmpfs /tmp and
 * home, no network, pids/memory/CPU limits, an init that reaps zombies. Only the workspace is
 * writable and persistent.
 */
export function buildContainerSpec(input: ContainerSpecInput): Dockerode.ContainerCreateOptions {
  for (const m of input.readOnlyMounts ?? []) assertExtraMount(m.hostPath, m.containerPath);
  const uid = `${input.identities.agent}`;
  const tmpfsSize = input.limits.tmpfsBytes ?? DEFAULT_TMPFS_BYTES;
  const binds = [
    `${input.workspaceHostDir}:${SANDBOX_WORKSPACE}:rw`,
    // Read-only: the host listens here, and the sandbox must not be able to plant a symlink.
    `${input.runHostDir}:${EXECUTOR_RUN_DIR}:ro`,
    ...(input.executorHostDir ? [`${input.executorHostDir}:${EXECUTOR_CODE_DIR}:ro`] : []),
    ...(input.readOnlyMounts ?? []).map((m) => `${m.hostPath}:${m.containerPath}:ro`),
    ...(input.accountFiles ?? []).map((m) => `${m.hostPath}:${m.containerPath}:ro`),
  ];
  return {
    name: input.name,
    Image: input.image,
    // uid 0 of the container, but holding only EXECUTOR_CAPS (no DAC override, no fowner, no
    // ptrace): it cannot even open the agent's files except through its agent-uid file helper.
    User: "0:0",
    WorkingDir: SANDBOX_WORKSPACE,
    Hostname: "sandbox",
    Cmd: ["node", `${EXECUTOR_CODE_DIR}/executor.mjs`, `${EXECUTOR_RUN_DIR}/${EXECUTOR_SOCKET_NAME}`],
    Env: [`HOME=${SANDBOX_HOME}`, "LANG=C.UTF-8"],
    NetworkDisabled: true,
    StopTimeout: 2,
    Labels: {
      [LABEL_SERVICE]: input.serviceId,
      [LABEL_SESSION]: input.sessionId,
      [LABEL_TENANT]: input.tenantId,
      [LABEL_HARDENING]: HARDENING_DIGEST,
      ...(input.uidSlot !== undefined ? { [LABEL_UID_SLOT]: String(input.uidSlot) } : {}),
    },
    HostConfig: {
      Binds: binds,
      NetworkMode: "none",
      CapDrop: ["ALL"],
      CapAdd: EXECUTOR_CAPS,
      // No new privileges, and a seccomp profile without io_uring (host-kernel-limits.ts).
      SecurityOpt: SANDBOX_SECURITY_OPT,
      ReadonlyRootfs: true,
      Tmpfs: {
        "/tmp": `rw,nosuid,nodev,size=${tmpfsSize},mode=1777`,
        [SANDBOX_HOME]: `rw,nosuid,nodev,size=${tmpfsSize},uid=${uid},gid=${uid},mode=0700`,
      },
      Mounts: devptsMounts(input.runtime),
      PidsLimit: hostPidsLimit(input.limits.pids, input.runtime),
      Memory: input.limits.memoryBytes,
      // Equal to Memory: no swap on top of the limit.
      MemorySwap: input.limits.memoryBytes,
      NanoCpus: input.limits.nanoCpus,
      Init: true,
      IpcMode: "private",
      ShmSize: SHM_BYTES,
      // System V IPC objects are not processes: killing a call's uid leaves them. A segment goes
      // when its last user does (its memory would otherwise outlive a read-only call), and few
      // message queues can exist (16 KiB each by default). Namespaced by IpcMode "private".
      Sysctls: IPC_SYSCTLS,
      Ulimits: SANDBOX_ULIMITS,
      MaskedPaths: SANDBOX_MASKED_PATHS,
      LogConfig: { Type: "none", Config: {} },
      RestartPolicy: { Name: "no" },
      Privileged: false,
      ...(input.runtime ? { Runtime: input.runtime } : {}),
    },
  };
}

const RESERVED = [SANDBOX_WORKSPACE, EXECUTOR_RUN_DIR, EXECUTOR_CODE_DIR, "/tmp", SANDBOX_HOME];

/** Extra mounts are absolute, plain, and never over (or above) the sandbox's own mounts. */
function assertExtraMount(hostPath: string, containerPath: string): void {
  const plain = (p: string) => p.startsWith("/") && !p.includes(":") && !p.split("/").includes("..");
  if (!plain(hostPath) || !plain(containerPath) || containerPath === "/") {
    throw new Error(`invalid read-only mount ${hostPath} -> ${containerPath}`);
  }
  const clash = RESERVED.find(
    (r) => `${r}/`.startsWith(`${containerPath}/`) || containerPath.startsWith(`${r}/`),
  );
  if (clash) throw new Error(`read-only mount ${containerPath} would cover ${clash}`);
}
