/**
 * What keeps one sandbox from spending the host kernel's resources that every sandbox shares
 * (attack27b). Without user namespaces every session's agent is the same host uid, so a per-uid
 * counter is a per-host one, and some counters are per host whatever the uid.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type Dockerode from "dockerode";

/**
 * Moby's current default seccomp profile (github.com/moby/profiles, seccomp/default.json, taken
 * verbatim). Docker 20.10's built-in one still allows io_uring: a large kernel attack surface, and
 * its rings are charged to the uid's locked memory host-wide (8 MiB shared by all agents).
 * Under gVisor the engine passes it on and runsc enforces its own syscall surface instead.
 */
const PROFILE = JSON.parse(readFileSync(new URL("./seccomp-profile.json", import.meta.url), "utf8")) as {
  syscalls: { names: string[]; action: string; includes?: { caps?: string[] } }[];
};
const SECCOMP_PROFILE = JSON.stringify(PROFILE);

/** The container's security options: no new privileges, and the seccomp profile above. */
export const SANDBOX_SECURITY_OPT = ["no-new-privileges", `seccomp=${SECCOMP_PROFILE}`];

/**
 * The syscall names the profile lets through for a container holding `caps` (e.g. "CAP_KILL"),
 * some only with certain arguments (for its guard test).
 */
export function seccompAllowedNames(caps: string[]): Set<string> {
  const applies = (r: (typeof PROFILE.syscalls)[number]) =>
    (r.includes?.caps ?? []).every((c) => caps.includes(c));
  return new Set(
    PROFILE.syscalls.filter((r) => r.action === "SCMP_ACT_ALLOW" && applies(r)).flatMap((r) => r.names),
  );
}

/**
 * POSIX message queues are charged to the uid's RLIMIT_MSGQUEUE bytes host-wide, and they outlive
 * their processes (until the container's IPC namespace goes): one agent's queues left every other
 * sandbox's `mq_open` failing. At 0 no sandbox charges anything; the limit cannot be raised
 * without CAP_SYS_RESOURCE.
 */
export const SANDBOX_ULIMITS = [{ Name: "msgqueue", Soft: 0, Hard: 0 }];

/**
 * Paths hidden from the sandbox (a read-only tmpfs or /dev/null over each): Docker's current
 * defaults (20.10's plus `/proc/interrupts` and powercap's energy counters, both side channels),
 * and the host's block devices. Those showed every session's workspace loop device: its backing
 * file (`<DATA_DIR>/sb/volumes/<session id>.img`, other tenants' session ids) and its I/O counters
 * (when another tenant's agent works), in sysfs and `/proc/diskstats`; PSI is host-wide load.
 */
export const SANDBOX_MASKED_PATHS = [
  "/proc/acpi",
  "/proc/asound",
  "/proc/interrupts",
  "/proc/kcore",
  "/proc/keys",
  "/proc/latency_stats",
  "/proc/sched_debug",
  "/proc/scsi",
  "/proc/timer_list",
  "/proc/timer_stats",
  "/sys/devices/virtual/powercap",
  "/sys/firmware",
  "/proc/diskstats",
  "/proc/pressure",
  "/sys/block",
  "/sys/class/block",
  "/sys/dev/block",
  "/sys/devices/virtual/block",
  "/sys/fs/ext4",
];

/** PTYs a sandbox can hold open at once (its own devpts instance's `max`). */
export const SANDBOX_PTYS = 64;

/**
 * Docker's /dev/pts is a devpts instance with no `max`, so every container draws on the host's
 * kernel.pty.max less the reserve (3,072 here): one agent holding them all left every other
 * sandbox (and other containers on the host) without a PTY. Each runc sandbox gets its own
 * instance, capped, as an anonymous volume (removed with the container: remove with `v`).
 * gVisor's PTYs are its own kernel's, not the host's.
 */
export function devptsMounts(runtime: string | undefined): Dockerode.MountSettings[] {
  if (runtime === "runsc") return [];
  return [
    {
      Type: "volume",
      // No source: an anonymous volume, the container's own.
      Source: "",
      Target: "/dev/pts",
      VolumeOptions: {
        NoCopy: true,
        Labels: {},
        DriverConfig: {
          Name: "local",
          Options: {
            type: "devpts",
            device: "devpts",
            // Docker's own options (tty group 5), plus the cap.
            o: `newinstance,ptmxmode=0666,mode=0620,gid=5,max=${SANDBOX_PTYS}`,
          },
        },
      },
    },
  ];
}

/**
 * A digest of the above, labelled on each container: a stopped container made under other settings
 * is made again on its next start (its workspace is kept), not started with what it had.
 */
export const HARDENING_DIGEST = createHash("sha256")
  .update(
    JSON.stringify([SANDBOX_SECURITY_OPT, SANDBOX_ULIMITS, SANDBOX_MASKED_PATHS, devptsMounts(undefined)]),
  )
  .digest("hex")
  .slice(0, 16);
