/** The policy check's `explanation`: the step and rule that decided, per simple command for Bash. */
import { describe, expect, it } from "vitest";
import { builtinSubjects } from "../../src/permission/builtins.js";
import { type PolicyCheckAnswer, runPolicyCheck } from "../../src/permission/policy-check.js";

const SUBJECTS = builtinSubjects();
const check = (command: string, rules: { allow?: string[]; deny?: string[]; ask?: string[] }) =>
  runPolicyCheck({ tool: "Bash", input: { command }, rules }, SUBJECTS) as PolicyCheckAnswer;

describe("the policy check's explanation", () => {
  it("names the allow rule and the simple command it covered; a read-only one needs none", () => {
    const a = check("git push && ls", { allow: ["Bash(git:*)"] });
    expect(a.behavior).toBe("allow");
    expect(a.explanation).toEqual({
      step: "allow rule",
      rule: "Bash(git:*)",
      commands: [
        {
          command: "git push",
          depth: 0,
          rule: { list: "allow", rule: "Bash(git:*)" },
          readOnly: false,
          missingRule: null,
        },
        { command: "ls", depth: 0, rule: null, readOnly: true, missingRule: null },
      ],
      summary: "allow for Bash: the allow rule Bash(git:*) matched the simple command `git push`",
    });
  });

  it("names the simple command no rule covers and the rule it would need", () => {
    const a = check("git status && touch a.txt", { allow: ["Bash(git:*)"] });
    expect(a.behavior).toBe("ask");
    expect(a.explanation.step).toBe("mode");
    expect(a.explanation.rule).toBeNull();
    expect(a.explanation.commands?.[1]).toMatchObject({
      command: "touch a.txt",
      rule: null,
      readOnly: false,
    });
    expect(a.explanation.commands?.[1]?.missingRule).toMatch(/^Bash\(touch/);
    expect(a.explanation.summary).toMatch(
      /^ask for Bash: no allow rule covers `touch a\.txt` \(would need Bash\(touch/,
    );
    expect(a.explanation.summary).toContain("so mode default decided");
  });

  it("names the deny rule and the simple command it hit inside a longer line", () => {
    const a = check("echo hi; rm -x foo", { deny: ["Bash(rm:*)"], allow: ["Bash(echo:*)"] });
    expect(a.behavior).toBe("deny");
    expect(a.explanation).toMatchObject({
      step: "deny rule",
      rule: "Bash(rm:*)",
      summary: "deny for Bash: the deny rule Bash(rm:*) matched the simple command `rm -x foo`",
    });
    expect(a.explanation.commands?.map((c) => c.rule?.list ?? null)).toEqual(["allow", "deny"]);
  });

  it("an ask rule, and a command nested in sh -c, are named", () => {
    const a = check("sh -c 'touch x'", { ask: ["Bash(touch:*)"] });
    expect(a.explanation).toMatchObject({ step: "ask rule", rule: "Bash(touch:*)" });
    expect(a.explanation.commands).toContainEqual(
      expect.objectContaining({ command: "touch x", depth: 1, rule: { list: "ask", rule: "Bash(touch:*)" } }),
    );
  });

  it("another tool: the mode decided when no rule matched", () => {
    const a = runPolicyCheck({ tool: "Write", input: { file_path: "/workspace/a", content: "x" } }, SUBJECTS);
    expect((a as PolicyCheckAnswer).explanation).toEqual({
      step: "mode",
      rule: null,
      summary: "ask for Write: no rule matched, so mode default decided (Mode: default)",
    });
  });
});
