/**
 * Attack 1, argument injection through Grep: with Bash denied, a Grep input that ripgrep would
 * parse as `--pre=bash` runs every searched file as a shell script. The script below leaves
 * three traces if it runs, whatever identity it runs as: its output (ripgrep searches or reports
 * it), /workspace/pwned.txt and /tmp/pwned-grep. The attack fails when none appears.
 */
import { describe, expect, it } from "vitest";
import { globFinds, harnessFor, jobText, newAttacker, runtimes } from "./support.js";

const RULES = { allow: ["Read", "Write", "Grep", "Glob"], deny: ["Bash"] };

// The marker is computed, so it can only appear in an answer if the script ran.
const PAYLOAD =
  'touch /tmp/pwned-grep\nid > /workspace/pwned.txt\necho "ran-$((6*7))"\necho "ran-$((6*7))" >&2\n';
const RAN = "ran-42";
// Matches the marker without spelling it, so that an answer quoting the pattern does not count.
const FIND = "ran-4[2]";

const VARIANTS: Record<string, unknown>[] = [
  { pattern: FIND, path: "--pre=bash" },
  { pattern: FIND, glob: "--pre=bash" },
  { pattern: FIND, type: "--pre=bash" },
  { pattern: FIND, glob: "x --pre=bash" },
  { pattern: "--pre=bash" },
];

describe.each(runtimes)("containment under %s: Grep input never becomes a ripgrep option", (runtime) => {
  const h = harnessFor(runtime);

  it.each(VARIANTS)("Grep %j runs no program", async (grep) => {
    const a = await newAttacker(h(), RULES);
    const w = await a.callAndWait("Write", { file_path: "/workspace/a.txt", content: PAYLOAD });
    expect(w.status, JSON.stringify(w)).toBe("succeeded");
    // Bash is denied, so only the injection could run the script.
    const bash = await a.submit("Bash", { command: "bash /workspace/a.txt" });
    expect(bash.job?.status).toBe("denied");

    const res = await a.tryCall("Grep", { ...grep, output_mode: "content" });
    // A clear refusal (4xx) or a job; either way nothing shows the script ran.
    if (res.job) expect.soft(jobText(res.job), "the injected script's output").not.toContain(RAN);
    else expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);

    const read = await a.callAndWait("Read", { file_path: "/workspace/pwned.txt" });
    expect.soft(jobText(read), "the injected script wrote /workspace/pwned.txt").toContain("does not exist");
    expect.soft(await globFinds(a, "pwned*"), "in /workspace").toBe("");
    expect.soft(await globFinds(a, "pwned*", "/tmp"), "in /tmp").toBe("");
  });
});
