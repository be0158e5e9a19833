/**
 * uid28, through the API: with SANDBOX_UID_SLOTS each sandbox of a host runs under its own host
 * uid range, so the per-uid kernel counters attack27b found shared (SHM_LOCK's RLIMIT_MEMLOCK;
 * RLIMIT_NPROC, epoll watches alike) are no longer one pool for every tenant: tenant A holds all
 * the locked memory its uid may have, tenant B still locks its own. Without slots B's fails
 * (ENOMEM), as attack27b reproduced.
 */
import { describe, expect, it } from "vitest";
import { UID_SLOT_WIDTH } from "../../src/sandbox/uid-slots.js";
import { attackScript, harnessFor, newAttacker, runtimes } from "./support.js";

const HOLD_SECONDS = 30;

const lines = (out: string) =>
  new Map(out.split("\n").map((l) => [l.split(" ")[0] ?? "", l.split(" ").slice(1).join(" ").trim()]));

describe.each(runtimes)("containment under %s: a uid range per sandbox", (runtime) => {
  const h = harnessFor(runtime, { SANDBOX_UID_SLOTS: "4096" });

  it("gives two tenants' agents disjoint uid ranges, each still named agent", async () => {
    const [a, b] = await Promise.all([
      newAttacker(h(), { allow: ["Bash"] }),
      newAttacker(h(), { allow: ["Bash"] }),
    ]);
    const probe = 'id -u; whoami; python3 -c "import os, pwd; print(pwd.getpwuid(os.getuid()).pw_name)"';
    const [ra, rb] = await Promise.all([a.bash(probe), b.bash(probe)]);
    const [ua, ...na] = ra.out.trim().split("\n");
    const [ub, ...nb] = rb.out.trim().split("\n");
    expect([na, nb]).toEqual([
      ["agent", "agent"],
      ["agent", "agent"],
    ]);
    expect(Math.abs(Number(ua) - Number(ub)), `${ua} ${ub}`).toBeGreaterThanOrEqual(UID_SLOT_WIDTH);
  });

  // gVisor keeps its own accounting of locked memory, inside each sandbox.
  it.skipIf(runtime === "runsc")(
    "one agent holding all the locked memory its uid may have leaves another tenant's its own",
    async () => {
      const a = await newAttacker(h(), { allow: ["Bash", "Write"] });
      const b = await newAttacker(h(), { allow: ["Bash", "Write"] });
      const script = attackScript("shared-kernel.py");
      const hold = await a.bash(`python3 ${await a.writeScript(script, "py")} hold-shm ${HOLD_SECONDS}`);
      // The control: A locked 8 MiB and its uid's limit is spent.
      expect(lines(hold.out).get("shm"), hold.out).toBe("ok");
      expect(lines(hold.out).get("more"), hold.out).toBe("ENOMEM");
      const probe = await b.bash(`python3 ${await b.writeScript(script, "py")} probe-shm`);
      expect(lines(probe.out).get("shm"), `tenant B after A's hold: ${probe.out}`).toBe("ok");
    },
  );
});
