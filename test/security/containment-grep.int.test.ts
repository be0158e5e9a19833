/**
 * Attack 1, argument injection through Grep: with Bash denied, a Grep input that ripgrep would
 * parse as `--pre=bash` runs every searched file as a shell script. The script below writes
 * /workspace/pwned.txt; the attack fails when that file never appears.
 */
import { describe, expect, it } from "vitest";
import { harnessFor, jobText, newAttacker, runtimes, workspaceHas } from "./support.js";

const RULES = { allow: ["Read", "Write", "Grep", "Glob"], deny: ["Bash"] };

const VARIANTS: Record<string, unknown>[] = [
  { pattern: "x", path: "--pre=bash" },
  { pattern: "x", glob: "--pre=bash" },
  { pattern: "x", type: "--pre=bash" },
  { pattern: "x", glob: "x --pre=bash" },
  { pattern: "--pre=bash" },
];

describe.each(runtimes)("containment under %s: Grep input never becomes a ripgrep option", (runtime) => {
  const h = harnessFor(runtime);

  it.each(VARIANTS)("Grep %j runs no program", async (grep) => {
    const a = await newAttacker(h(), RULES);
    const w = await a.callAndWait("Write", {
      file_path: "/workspace/a.txt",
      content: "id > /workspace/pwned.txt\n",
    });
    expect(w.status, JSON.stringify(w)).toBe("succeeded");
    // Bash is denied, so only the injection could create the file.
    const bash = await a.submit("Bash", { command: "id > /workspace/pwned.txt" });
    expect(bash.job?.status).toBe("denied");

    const res = await a.tryCall("Grep", grep);
    // A clear refusal (4xx) or a job; either way no program ran and nothing says it did.
    if (res.job) expect(jobText(res.job)).not.toMatch(/uid=\d+/);
    else expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);

    const read = await a.callAndWait("Read", { file_path: "/workspace/pwned.txt" });
    expect(read.status, `the injected script ran; /workspace/pwned.txt holds: ${jobText(read)}`).toBe(
      "failed",
    );
    expect(jobText(read)).toContain("does not exist");
    expect(await workspaceHas(a, "pwned*")).toBe(false);
  });
});
