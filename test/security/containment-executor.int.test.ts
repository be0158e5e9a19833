/**
 * Attack 4, impersonating and killing the in-container executor. A sandbox process that reaches
 * the host socket gets handed later requests (it can forge results); one that can signal the
 * executor makes the worker run the call again on every container restart.
 */
import { describe, expect, it } from "vitest";
import { attackScript, harnessFor, jobText, newAttacker, nonce, runtimes } from "./support.js";

const RULES = { allow: ["Bash", "Write"] };

/** Counts its runs in a file, then kills the executor that runs it. */
const COUNT_AND_KILL = "echo x >> /workspace/counter\npkill -9 -f executor.mjs\nsleep 1\n";

describe.each(runtimes)(
  "containment under %s: the executor can be neither impersonated nor killed",
  (runtime) => {
    const h = harnessFor(runtime);

    it("no sandbox process reaches the host socket, and later calls return their true output", async () => {
      const a = await newAttacker(h(), RULES);
      const { out } = await a.script(attackScript("probe-and-forge.py"), "python3");
      const probes = out.split("\n").filter((l) => l.startsWith("connect "));
      expect(probes.length, out).toBeGreaterThan(0);
      for (const line of probes)
        expect.soft(line, "a sandbox process reached the host socket").not.toMatch(/: open$/);

      const tag = nonce();
      for (let i = 0; i < 5; i++) {
        const { out: echoed } = await a.bash(`echo real-${tag}-${i}`);
        expect.soft(echoed, `call ${i} answered by someone else`).toBe(`real-${tag}-${i}\n`);
      }
    });

    it("kill -9 of any process outside the call is refused, and the call still answers", async () => {
      const a = await newAttacker(h(), RULES);
      const { job, out } = await a.script(attackScript("kill-others.sh"));
      expect(job.status, `${job.status}: ${out}`).toBe("succeeded");
      const lines = out.trim().split("\n");
      expect(lines.at(-1), out).toBe("done");
      const attempts = lines.slice(0, -1);
      // A process that ended between the listing and the kill answers "No such process".
      for (const line of attempts)
        expect.soft(line).toMatch(/^refused .*(Operation not permitted|No such process)/);
      expect(
        attempts.filter((l) => l.includes("Operation not permitted")),
        out,
      ).not.toEqual([]);
    });

    it("a call that kills the executor runs exactly once", async () => {
      const a = await newAttacker(h(), RULES);
      const { job } = await a.script(COUNT_AND_KILL);
      const { out } = await a.bash("cat /workspace/counter");
      expect.soft(out, "the call ran more than once").toBe("x\n");
      expect.soft(["succeeded", "interrupted"], `${job.status}: ${jobText(job)}`).toContain(job.status);
    });
  },
);
