import { describe, expect, it } from "vitest";
import { bash, bashCtx } from "./context.js";

const suggest = (command: unknown) =>
  bash.generateSuggestions({ command }, bashCtx()).map((r) => {
    expect(r).toMatchObject({ toolName: "Bash", behavior: "allow", source: "suggested" });
    return r.ruleContent;
  });

describe("Bash suggestions", () => {
  it.each([
    ["git add . && git commit -m x || echo failed", ["git add:*", "git commit:*"]],
    ["cat f | grep e", []],
    ["ls $(rm -rf /)", []],
    ["CUSTOM=1 npm test", []],
    ["NODE_ENV=production npm run build", ["npm run:*"]],
    ['git commit -m "fix bug"', ["git commit:*"]],
    ["rm -rf build", ["rm -rf:*"]],
    ["python -m pytest", ["python -m:*"]],
    ["mkdir /workspace/a", ["mkdir /workspace/a:*"]],
    ['npm "run" build', ["npm build:*"]],
    ["sleep 5", []],
    ["npm test && npm test", ["npm test:*"]],
    ["a 1 ; b x; c x; d x; e x; f x", ["b x:*", "c x:*", "d x:*", "e x:*"]],
    ["tee out.txt", ["tee out.txt:*"]],
    ["", []],
  ])("%j → %j", (command, expected) => {
    expect(suggest(command)).toEqual(expected);
  });

  it("gives [] for non-strings and unanalysable input", () => {
    expect(suggest(7)).toEqual([]);
    expect(suggest(`echo ${"a".repeat(70_000)}`)).toEqual([]);
  });
});
