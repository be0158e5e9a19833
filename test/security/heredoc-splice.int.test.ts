/**
 * attack26a: bash reads an unquoted here-document's body with backslash-newlines spliced, and
 * tree-sitter does not. `EO\⏎F` is the delimiter line `EOF` to bash, which then runs the next
 * line as a command; the policy read that line as text and auto-allowed the whole call as `cat`.
 * Likewise tree-sitter took a body line `\` as the command line continued. Through the real API
 * and sandbox: the hidden command must not run, neither as the reader (no rule) nor as the agent
 * (an allow rule for `cat`, which covered every command the policy saw).
 */
import { describe, expect, it } from "vitest";
import { globFinds, harnessFor, jobText, newAttacker, runtimes } from "./support.js";

const SPLICED = (file: string) => `cat <<EOF\nEO\\\nF\ntouch ${file}\nEOF`;
const CONTINUED = (file: string) => `cat <<EOF\n\\\nEOF\ntouch ${file}\nEOF`;

describe.each(runtimes)("containment under %s: a here-document bash ends elsewhere", (runtime) => {
  const h = harnessFor(runtime);

  it.each([
    ["a spliced delimiter line", SPLICED],
    ["a body line read as the command line continued", CONTINUED],
  ])("%s: the line bash runs after it is not auto-allowed", async (_, make) => {
    const a = await newAttacker(h(), { allow: ["Glob"] });
    const job = await a.callAndWait("Bash", { command: make("/tmp/hd-ran") });
    expect(await globFinds(a, "hd-ran", "/tmp"), "the hidden command ran").toBe("");
    expect(job.status, jobText(job)).toBe("awaiting_approval");
  });

  it("an allow rule for `cat` does not cover the hidden command (it would run as the agent)", async () => {
    const a = await newAttacker(h(), { allow: ["Glob", "Bash(cat:*)"] });
    // Not read-only (it writes notes.txt), so only the rule could allow it: as the agent.
    const command = `cat > /workspace/notes.txt <<EOF\nEO\\\nF\ntouch /workspace/hd-agent-ran\nEOF`;
    const job = await a.callAndWait("Bash", { command });
    expect(await globFinds(a, "hd-agent-ran"), "the hidden command ran as the agent").toBe("");
    expect(job.status, jobText(job)).toBe("awaiting_approval");
  });

  // The control: the tests above would prove nothing if here-documents asked anyway.
  it("a here-document whose end both read alike is still auto-allowed", async () => {
    const a = await newAttacker(h(), { allow: ["Glob"] });
    const job = await a.callAndWait("Bash", { command: "cat <<EOF | cat\nhello \\\nthere\nEOF" });
    expect(job.status, jobText(job)).toBe("succeeded");
    expect(jobText(job)).toContain("hello there");
  });
});
