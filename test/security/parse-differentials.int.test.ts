/**
 * attack26a: lines where bash runs a command that tree-sitter read as text, so the policy
 * auto-allowed the line by what it saw (`cat`, `echo`):
 * - an unquoted here-document's body is read with backslash-newlines spliced: `EO\⏎F` is the
 *   delimiter line `EOF` to bash, which then runs the next line; a body line `\` was read by
 *   tree-sitter as the command line continued;
 * - in `$'a\\'` the second backslash is escaped and the quote ends the string; tree-sitter ran the
 *   string on to a later quote;
 * - backslash-CR-LF is a continuation to tree-sitter, an escaped CR and a newline to bash;
 * - a here-document's end line `EOF ` (trailing blank) ended it for tree-sitter, not for bash;
 * - `{PATH}` before a redirection assigns PATH the descriptor's number (`./11/git` then ran).
 * Through the real API and sandbox: the hidden command must not run, neither as the reader (no
 * rule) nor as the agent (an allow rule for the visible command, which covered all it saw).
 */
import { describe, expect, it } from "vitest";
import { globFinds, harnessFor, jobText, newAttacker, runtimes, sharedAttackers } from "./support.js";

const SPLICED = (file: string) => `cat <<EOF\nEO\\\nF\ntouch ${file}\nEOF`;
const CONTINUED = (file: string) => `cat <<EOF\n\\\nEOF\ntouch ${file}\nEOF`;
const TRAILING_BLANK = (file: string) => `cat <<'EOF'\nx\nEOF \ncat <<EOG\nEOF\ntouch ${file}\nEOG`;
const ANSI_C = (file: string) => `echo $'a\\\\' ; touch ${file} #'`;
const CR_LF = (file: string) => `echo a\\\r\ntouch ${file}`;

describe.each(runtimes)("containment under %s: a command bash runs where tree-sitter saw text", (runtime) => {
  const h = harnessFor(runtime);
  // One session for the cases with no rule but Glob: each leaves it as it found it unless its
  // hidden command runs (then its file fails the later cases too).
  const shared = sharedAttackers(h);
  const globOnly = () => shared("glob", (hh) => newAttacker(hh, { allow: ["Glob"] }, { kept: true }));

  it.each([
    ["a spliced delimiter line", SPLICED],
    ["a body line read as the command line continued", CONTINUED],
    ["an end line with a trailing blank (bash compares whole lines)", TRAILING_BLANK],
    ["a `$'…'` ending in an escaped backslash", ANSI_C],
    ["a backslash before CR-LF", CR_LF],
  ])("%s: the line bash runs after it is not auto-allowed", async (_, make) => {
    const a = await globOnly();
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

  it("an allow rule for `echo` does not cover what follows `$'a\\\\'`", async () => {
    const a = await newAttacker(h(), { allow: ["Glob", "Bash(echo:*)"] });
    const job = await a.callAndWait("Bash", {
      command: `echo $'a\\\\' > /workspace/n.txt; touch /workspace/ac-agent-ran #'`,
    });
    expect(await globFinds(a, "ac-agent-ran"), "the hidden command ran as the agent").toBe("");
    expect(job.status, jobText(job)).toBe("awaiting_approval");
  });

  it("`{PATH}` before a redirection does not send `git` to the agent's directory", async () => {
    const a = await newAttacker(h(), { allow: ["Bash", "Write"] });
    // A `git` of the agent's in each directory a descriptor number may name.
    const { job: planted, out } = await a.script(
      'for n in $(seq 3 40); do mkdir -p /workspace/$n; printf "#!/bin/sh\\n/usr/bin/touch /tmp/path-ran\\n" > /workspace/$n/git; chmod +x /workspace/$n/git; done',
    );
    expect(planted.status, out).toBe("succeeded");
    await a.setRules({ allow: ["Glob"] });
    for (const command of ["true {PATH}</dev/null; git status", "echo x {PATH}>&2; git status"]) {
      const job = await a.callAndWait("Bash", { command });
      expect(await globFinds(a, "path-ran", "/tmp"), `${command}: the agent's git ran`).toBe("");
      expect(job.status, jobText(job)).toBe("awaiting_approval");
    }
  });

  // The control: the tests above would prove nothing if here-documents asked anyway.
  it("a here-document whose end both read alike is still auto-allowed", async () => {
    const a = await globOnly();
    const job = await a.callAndWait("Bash", { command: "cat <<EOF | cat\nhello \\\nthere\nEOF" });
    expect(job.status, jobText(job)).toBe("succeeded");
    expect(jobText(job)).toContain("hello there");
  });
});
