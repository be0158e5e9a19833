/**
 * attack26b: the container's memory limit against a hostile agent. The tmpfs mounts (/tmp, the
 * home, /dev/shm) are charged to the container's memory and no process owns their pages, so an
 * agent that fills them and then starts many middle-sized processes made the memory cgroup's OOM
 * killer pick the largest process: the executor. The container went with it, and the call (and
 * anything else running in the session) ended "interrupted". Commands now start first in the OOM
 * order (oom_score_adj 1000, set by the fork server), so a command is killed and the sandbox lives.
 * spawner29: the fork server holds that 1000 itself (its commands inherit it), so the OOM killer may
 * pick it too; the executor starts it again, and still never is the one picked.
 */
// suite: parallel — pkill runs inside its own sandbox; the container's memory is capped at 256 MB
import { describe, expect, it } from "vitest";
import { harnessFor, newAttacker } from "./support.js";

// A small container, so that the attack needs little of the shared host's memory.
const MEMORY_MB = 256;

// Fills the tmpfs mounts with 120 MiB, then forks children of 8 MiB each (touched, so resident)
// until the cgroup is out of memory. No process is larger than the executor (~50 MiB).
const ATTACK = `import os, time
for path in ("/tmp/fill", os.environ["HOME"] + "/fill", "/dev/shm/fill"):
    with open(path, "wb") as f:
        f.write(b"x" * (40 << 20))
for i in range(60):
    if os.fork() == 0:
        b = bytearray(8 << 20)
        for j in range(0, len(b), 4096):
            b[j] = 1
        time.sleep(20)
        os._exit(0)
    time.sleep(0.02)
time.sleep(2)
print("parent survived")
`;

describe("containment under runc: memory pressure from the tmpfs mounts and many processes", () => {
  const h = harnessFor("runc", { SANDBOX_MEMORY_MB: String(MEMORY_MB) });

  it("kills the agent's processes, not the executor, and the session goes on in the same container", async () => {
    const a = await newAttacker(h(), { allow: ["Bash", "Write"] });
    const py = await a.writeScript(ATTACK, "py");
    // What the OOM killer left of the attack goes too; the call's own outcome is then exit 0.
    const { job } = await a.script(`python3 ${py}; pkill -KILL -x python3; true\n`, "bash", {
      timeout: 60_000,
    });
    // The executor lived: the call has an outcome of its own, not "interrupted" by a restart.
    expect(job.status, JSON.stringify(job.result)).toBe("succeeded");
    // The same container: a restarted one would have empty tmpfs mounts.
    expect((await a.bash("ls /tmp/fill /dev/shm/fill")).out).toBe("/dev/shm/fill\n/tmp/fill\n");
  });

  it("an OOM while no call runs takes the attack's leftovers or the fork server, which is back for the next call", async () => {
    const a = await newAttacker(h(), { allow: ["Bash", "Write"] });
    const py = await a.writeScript(ATTACK, "py");
    // Left running: the OOM comes after this call ended, between calls.
    const left = await a.bash(`setsid python3 ${py} >/dev/null 2>&1 </dev/null & true`);
    expect(left.job.status).toBe("succeeded");
    // Until the attack is over (its children sleep 20 s): the calls meanwhile are never
    // "interrupted" (the executor, and the container with it, lived).
    for (let i = 0; i < 120; i++) {
      const { job, out } = await a.bash("sleep 0.5; pgrep -c -x python3 || true");
      expect(job.status, JSON.stringify(job.result)).not.toBe("interrupted");
      if (out.trim() === "0") break;
    }
    const after = await a.bash(
      "cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null | grep '^oom_kill '; ls /tmp/fill /dev/shm/fill; cat /proc/self/oom_score_adj; tr '\\0' ' ' </proc/$PPID/cmdline",
    );
    expect(after.job.status, JSON.stringify(after.job.result)).toBe("succeeded");
    const lines = after.out.trim().split("\n");
    // The attack did bring the OOM killer (else this proves nothing): cgroup v2's or v1's count.
    expect(Number(lines[0]?.split(" ")[1])).toBeGreaterThan(0);
    // The same container, and the next command goes through a fork server, first in the OOM order.
    expect(lines.slice(1)).toEqual([
      "/dev/shm/fill",
      "/tmp/fill",
      "1000",
      "/usr/local/libexec/toolshed-spawner",
    ]);
  }, 180_000);
});
