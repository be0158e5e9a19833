import { describe, expect, it } from "vitest";
import {
  buildContainerSpec,
  type ContainerSpecInput,
  EXECUTOR_CAPS,
} from "../../src/sandbox/container-spec.js";
import { HARDENING_DIGEST, SANDBOX_PTYS, seccompAllowedNames } from "../../src/sandbox/host-kernel-limits.js";
import { DEFAULT_UID_BASE, identitiesFrom } from "../../src/sandbox/sandbox.js";
import { hostPidsLimit } from "../../src/sandbox/sandbox-runtime.js";
import { assertSessionId, assertSocketPathFits, sessionPaths } from "../../src/sandbox/session-paths.js";

const input: ContainerSpecInput = {
  name: "toolshed-svc-ses_1-abcd1234",
  image: "toolshed-sandbox:latest",
  serviceId: "svc",
  sessionId: "ses_1",
  tenantId: "ten_1",
  workspaceHostDir: "/data/workspaces/ses_1",
  runHostDir: "/data/run/0123456789abcdef",
  executorHostDir: "/app/src/sandbox/executor",
  readOnlyMounts: [{ hostPath: "/data/skills/ten_1", containerPath: "/skills" }],
  limits: { memoryBytes: 512 * 1024 * 1024, pids: 256, nanoCpus: 1_500_000_000 },
  identities: identitiesFrom(DEFAULT_UID_BASE),
};

describe("buildContainerSpec", () => {
  const spec = buildContainerSpec(input);
  const host = spec.HostConfig!;

  it("runs the executor as uid 0 with only the capabilities to start and end other uids", () => {
    expect(spec.User).toBe("0:0");
    expect(host.CapDrop).toEqual(["ALL"]);
    expect(host.CapAdd).toEqual(["SETUID", "SETGID", "KILL", "CHOWN"]);
    expect(host.SecurityOpt?.[0]).toBe("no-new-privileges");
    expect(host.SecurityOpt?.[1]).toMatch(/^seccomp=\{/);
    expect(host.Privileged).toBe(false);
  });

  it("has a read-only root with tmpfs /tmp and home owned by the user", () => {
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.Tmpfs?.["/tmp"]).toMatch(/mode=1777/);
    expect(host.Tmpfs?.["/home/agent"]).toMatch(/uid=100000,gid=100000/);
  });

  it("has no network", () => {
    expect(host.NetworkMode).toBe("none");
    expect(spec.NetworkDisabled).toBe(true);
    expect(host.PortBindings).toBeUndefined();
  });

  it("limits pids, memory without extra swap, and CPU, and runs an init", () => {
    expect(host.PidsLimit).toBe(256);
    expect(host.Memory).toBe(512 * 1024 * 1024);
    expect(host.MemorySwap).toBe(host.Memory);
    expect(host.NanoCpus).toBe(1_500_000_000);
    expect(host.Init).toBe(true);
    expect(host.LogConfig?.Type).toBe("none");
  });

  it("mounts only the workspace read-write; the socket dir, executor and skills read-only", () => {
    expect(host.Binds).toEqual([
      "/data/workspaces/ses_1:/workspace:rw",
      "/data/run/0123456789abcdef:/run/toolshed:ro",
      "/app/src/sandbox/executor:/opt/toolshed:ro",
      "/data/skills/ten_1:/skills:ro",
    ]);
    expect(spec.WorkingDir).toBe("/workspace");
  });

  it("labels the container so a restarted service can find and reap it", () => {
    expect(spec.Labels).toEqual({
      "toolshed.service": "svc",
      "toolshed.session": "ses_1",
      "toolshed.tenant": "ten_1",
      "toolshed.hardening": HARDENING_DIGEST,
    });
  });

  it("starts the executor against the host socket", () => {
    expect(spec.Cmd).toEqual(["node", "/opt/toolshed/executor.mjs", "/run/toolshed/host.sock"]);
  });
});

describe("extra read-only mounts", () => {
  it.each([
    ["/workspace", "covers the workspace"],
    ["/run", "is above the executor socket"],
    ["/tmp/skills", "is inside a tmpfs"],
    ["relative", "is relative"],
    ["/skills:rw", "smuggles options"],
    ["/", "is the root"],
  ])("refuses %s (%s)", (containerPath) => {
    expect(() =>
      buildContainerSpec({ ...input, readOnlyMounts: [{ hostPath: "/h", containerPath }] }),
    ).toThrow();
  });
});

describe("session paths", () => {
  it.each(["ses_abc", "A-b_9"])("accepts %s", (id) => expect(() => assertSessionId(id)).not.toThrow());
  it.each(["", "../x", "a/b", "a b", "x".repeat(129)])("rejects %j", (id) =>
    expect(() => assertSessionId(id)).toThrow(),
  );

  it("keeps socket paths short whatever the session id", () => {
    const p = sessionPaths("/data", "svc", "s".repeat(128));
    expect(p.socketPath).toMatch(/^\/data\/run\/[0-9a-f]{16}\/host\.sock$/);
    expect(p.workspaceDir).toBe(`/data/workspaces/${"s".repeat(128)}`);
    expect(p.containerName.length).toBeLessThan(80);
  });

  it("refuses a data directory too long for unix sockets", () => {
    expect(() => assertSocketPathFits(`/${"d".repeat(90)}`)).toThrow(/too long/);
    expect(() => assertSocketPathFits("/var/lib/toolshed")).not.toThrow();
  });
});

describe("runtime and /dev/shm in the spec", () => {
  it("leaves the engine's default runtime and the plain pids limit unless told, and sizes /dev/shm", () => {
    const host = buildContainerSpec(input).HostConfig!;
    expect(host.Runtime).toBeUndefined();
    expect(host.PidsLimit).toBe(256);
    expect(host.ShmSize).toBe(64 * 1024 * 1024);
    // attack22a: no System V segment outlives its last user; few message queues.
    expect(host.Sysctls).toEqual({ "kernel.shm_rmid_forced": "1", "kernel.msgmni": "16" });
  });

  it("runs under runsc with room in the pids cgroup for gVisor's own host tasks", () => {
    const host = buildContainerSpec({ ...input, runtime: "runsc" }).HostConfig!;
    expect(host.Runtime).toBe("runsc");
    expect(host.PidsLimit).toBe(hostPidsLimit(256, "runsc"));
    expect(host.PidsLimit).toBeGreaterThan(256);
    expect(hostPidsLimit(256, "runc")).toBe(256);
  });
});

// attack27b: what every sandbox on a host shares (one agent uid for all, host-wide counters).
describe("the host kernel's shared resources in the spec", () => {
  it("allows no io_uring, keyrings, bpf, perf events, userfaultfd or namespace syscalls", () => {
    const allowed = seccompAllowedNames(EXECUTOR_CAPS.map((c) => `CAP_${c}`));
    expect(allowed.has("read") && allowed.has("clone")).toBe(true);
    for (const name of [
      "io_uring_setup",
      "io_uring_enter",
      "io_uring_register",
      "add_key",
      "keyctl",
      "request_key",
      "bpf",
      "perf_event_open",
      "userfaultfd",
      "unshare",
      "setns",
      "mount",
      "kexec_load",
    ]) {
      expect(allowed.has(name), name).toBe(false);
    }
  });

  it("charges no POSIX message queue to the uid host-wide", () => {
    const host = buildContainerSpec(input).HostConfig!;
    expect(host.Ulimits).toEqual([{ Name: "msgqueue", Soft: 0, Hard: 0 }]);
  });

  it("hides the host's block devices (every workspace's backing file and counters) and Docker's defaults", () => {
    const masked = buildContainerSpec(input).HostConfig!.MaskedPaths ?? [];
    for (const p of [
      "/sys/block",
      "/sys/devices/virtual/block",
      "/sys/fs/ext4",
      "/proc/diskstats",
      "/proc/kcore",
    ])
      expect(masked, p).toContain(p);
  });

  it("gives each runc sandbox its own capped devpts; gVisor's PTYs are its own already", () => {
    const [pts, ...rest] = buildContainerSpec(input).HostConfig!.Mounts ?? [];
    expect(rest).toEqual([]);
    expect(pts?.Target).toBe("/dev/pts");
    expect(pts?.VolumeOptions?.DriverConfig?.Options?.o).toContain(`newinstance`);
    expect(pts?.VolumeOptions?.DriverConfig?.Options?.o).toContain(`max=${SANDBOX_PTYS}`);
    expect(buildContainerSpec({ ...input, runtime: "runsc" }).HostConfig!.Mounts).toEqual([]);
  });
});
