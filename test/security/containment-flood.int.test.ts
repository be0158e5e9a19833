/**
 * Attack 6, flooding the host socket: one session hammers connect() on /run/toolshed/host.sock
 * (at most 5 s and 50,000 attempts) while another tenant's session runs its calls. The flood must
 * get nowhere, and the other tenant's calls must all come back right (no timing is asserted).
 */
import { describe, expect, it } from "vitest";
import { attackScript, harnessFor, jobText, newAttacker, nonce, runtimes } from "./support.js";

const RULES = { allow: ["Bash", "Write"] };

describe.each(runtimes)("containment under %s: a host-socket flood reaches nothing", (runtime) => {
  const h = harnessFor(runtime);

  it("the flooder's connects all fail and another tenant's 10 calls all answer right", async () => {
    const flooder = await newAttacker(h(), RULES);
    const other = await newAttacker(h(), { allow: ["Bash"] });
    await other.bash("true"); // its container is up before the flood starts

    const file = await flooder.writeScript(attackScript("flood.py"), "py");
    const flood = await flooder.submit("Bash", { command: `python3 ${file}` });
    expect(flood.status, JSON.stringify(flood.body)).toBe(202);
    await flooder.waitForOutput(flood.job!.id, "FLOODING");

    const tag = nonce();
    for (let i = 0; i < 10; i++) {
      const { job, out } = await other.bash(`echo ${tag}-${i}`);
      expect.soft(job.status).toBe("succeeded");
      expect.soft(out).toBe(`${tag}-${i}\n`);
    }

    const done = await flooder.waitFinal(flood.job!.id);
    const counts = /ok=(\d+) failed=(\d+)/.exec(jobText(done));
    expect(counts, JSON.stringify(done)).not.toBeNull();
    expect(Number(counts![1]) + Number(counts![2])).toBeGreaterThan(0);
    expect(Number(counts![1]), `connects that reached the host socket (${counts![0]})`).toBe(0);
  });
});
