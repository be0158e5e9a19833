/**
 * Attack 5, processes that outlive their call: a command detaches children (setsid, disown,
 * nohup, a busy loop) and then times out or is cancelled. Whatever they did to detach, none of
 * them may be left running once the call has ended, and the result must say the call was stopped.
 */
import { describe, expect, it } from "vitest";
import { type Attacker, harnessFor, jobText, newAttacker, runtimes } from "./support.js";

/** Three ways to leave a process behind; the busy loop would keep the container's CPU. */
const DETACH =
  "setsid sleep 777 & disown; setsid bash -c 'while :; do :; done' & nohup sleep 778 >/dev/null 2>&1 &";
const isLeftover = (args: string) =>
  args === "sleep 777" || args === "sleep 778" || args.includes("while :; do :; done");

/** The processes the call left behind, as a later call sees them (after the 1 s the fix may take). */
async function leftovers(a: Attacker, left = isLeftover): Promise<string[]> {
  const { out } = await a.bash("sleep 1; ps -eo stat=,args=");
  // The control: this call sees processes beyond its own, or an empty list would prove nothing.
  expect(out, "ps shows no process outside the call").toContain("executor.mjs");
  return out
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("Z")) // a zombie is dead, only not yet reaped
    .map((l) => l.replace(/^\S+\s+/, ""))
    .filter(left);
}

describe.each(runtimes)("containment under %s: a call owns every process it starts", (runtime) => {
  const h = harnessFor(runtime);

  it("on timeout, detached children are killed too", async () => {
    const a = await newAttacker(h(), { allow: ["Bash"] });
    const { job, out } = await a.bash(`${DETACH} sleep 100`, { timeout: 2000 });
    expect(job.status).not.toBe("succeeded");
    expect(out).toMatch(/timed out|killed/i);
    const left = await leftovers(a);
    expect(left, `alive after the call timed out: ${left.join(" | ")}`).toEqual([]);
  });

  it("on cancel, detached children are killed too", async () => {
    const a = await newAttacker(h(), { allow: ["Bash"] });
    // `tr` makes the marker appear only in the output, never in the command text.
    const sub = await a.submit("Bash", { command: `${DETACH} echo ready | tr a-z A-Z; sleep 100` });
    expect(sub.status, JSON.stringify(sub.body)).toBe(202);
    await a.waitForOutput(sub.job!.id, "READY");
    const cancel = await h().call("POST", `/v1/jobs/${sub.job!.id}/cancel`, { key: a.agentKey });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    const job = await a.waitFinal(sub.job!.id);
    expect(["cancelled", "interrupted"]).toContain(job.status);
    expect(jobText(job)).toMatch(/interrupt|cancel|kill/i);
    const left = await leftovers(a);
    expect(left, `alive after the call was cancelled: ${left.join(" | ")}`).toEqual([]);
  });

  // attack26a: a read-only call (the reader's uid, no rule) that blocks on a FIFO the agent made,
  // in the reader itself or in bash opening its redirect, ends at its timeout with nothing left.
  it("a reader blocked on a FIFO ends at its timeout, and nothing of it is left", async () => {
    const a = await newAttacker(h(), { allow: ["Bash"] });
    await a.bash("mkfifo /workspace/p");
    await a.setRules({ allow: ["Glob"] });
    for (const command of ["cat /workspace/p", "cat < /workspace/p", "tail -f /workspace/p"]) {
      const job = await a.callAndWait("Bash", { command, timeout: 1000 });
      expect(job.decision, command).toMatchObject({ behavior: "allow", readOnly: true });
      expect(job.status, command).not.toBe("succeeded");
      expect(jobText(job), command).toMatch(/timed out|killed/i);
    }
    await a.setRules({ allow: ["Bash"] });
    const left = await leftovers(a, (args) => args.includes("/workspace/p"));
    expect(left, `alive after the calls timed out: ${left.join(" | ")}`).toEqual([]);
  });
});
