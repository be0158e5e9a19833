import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { parseMountInfo } from "../../src/sandbox/mount-table.js";
import { quotaSupportProblem } from "../../src/sandbox/workspace-volume.js";

const MIB = 1024 * 1024;
const asRoot = { uid: 0, loopControl: true };

describe("quotaSupportProblem", () => {
  it("accepts root with loop devices and a quota that fits ext4", () => {
    expect(quotaSupportProblem({ diskBytes: 1024 * MIB, inodes: 100_000 }, asRoot)).toBeNull();
    expect(quotaSupportProblem({ diskBytes: 20 * MIB, inodes: 2000 }, asRoot)).toBeNull();
  });

  it("refuses without root or without loop devices, naming why", () => {
    const quota = { diskBytes: 1024 * MIB, inodes: 100_000 };
    expect(quotaSupportProblem(quota, { uid: 1000, loopControl: true })).toMatch(/need root \(uid is 1000\)/);
    expect(quotaSupportProblem(quota, { uid: 0, loopControl: false })).toMatch(/loop-control is missing/);
  });

  it("refuses quotas mkfs.ext4 cannot make", () => {
    expect(quotaSupportProblem({ diskBytes: 4 * MIB, inodes: 1000 }, asRoot)).toMatch(/at least 8 MiB/);
    expect(quotaSupportProblem({ diskBytes: 8 * MIB, inodes: 100_000 }, asRoot)).toMatch(/do not fit/);
    expect(quotaSupportProblem({ diskBytes: 8 * MIB, inodes: 10 }, asRoot)).toMatch(/do not fit/);
  });
});

describe("parseMountInfo", () => {
  it("reads mount point, type and source, with optional fields and octal escapes", () => {
    const text = [
      "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue",
      "51 27 7:3 / /tmp/tsb-x/workspaces/ses\\040a rw,nosuid,nodev,noatime shared:5 - ext4 /dev/loop3 rw",
      "52 27 0:48 / /run/a\\134b rw - tmpfs tmpfs rw",
      "garbage line",
      "",
    ].join("\n");
    expect(parseMountInfo(text)).toEqual([
      { mountPoint: "/mnt/parent", fsType: "ext3", source: "/dev/root" },
      { mountPoint: "/tmp/tsb-x/workspaces/ses a", fsType: "ext4", source: "/dev/loop3" },
      { mountPoint: "/run/a\\b", fsType: "tmpfs", source: "tmpfs" },
    ]);
  });
});

describe("quota and runtime settings", () => {
  it("default to quotas on (1 GiB, 100,000 inodes) under runc", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      SANDBOX_DISK_MB: 1024,
      SANDBOX_INODES: 100_000,
      SANDBOX_DISK_QUOTA: "on",
      SANDBOX_RUNTIME: "runc",
    });
  });

  it("refuse unknown runtimes and quota switches", () => {
    expect(() => loadConfig({ SANDBOX_RUNTIME: "kata" })).toThrow(/SANDBOX_RUNTIME/);
    expect(() => loadConfig({ SANDBOX_DISK_QUOTA: "no" })).toThrow(/SANDBOX_DISK_QUOTA/);
    expect(() => loadConfig({ SANDBOX_DISK_MB: "4" })).toThrow(/SANDBOX_DISK_MB/);
  });
});
