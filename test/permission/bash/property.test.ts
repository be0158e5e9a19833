import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkPermission } from "../../../src/permission/engine.js";
import type { PermissionMode } from "../../../src/permission/types.js";
import { bash, bashCtx } from "./context.js";

const REALISTIC = [
  "git status",
  "git log --oneline -n 20 | head",
  "npm run build && npm test",
  "cd /workspace/app && pnpm install --frozen-lockfile",
  "pytest -x tests/ 2>&1 | tail -n 50",
  "sed -i 's/foo/bar/g' src/index.ts",
  "find . -name '*.py' -not -path './venv/*' | xargs grep -l TODO",
  "rg -n 'fn main' --type rust",
  'for f in *.ts; do echo "$f"; done',
  "cat <<EOF > out.txt\nhello $USER\nEOF",
  "docker ps -a --format '{{.Names}}'",
  "python -c 'import sys; print(sys.version)'",
  "echo ééé && rm ~/.bashrc",
  "FOO=1 sudo /bin/rm -r /usr 2>/dev/null",
  "ls -la ~ > /dev/null",
];

const INSERTS = [
  "$(",
  "`",
  "<(",
  "&&",
  "||",
  ";",
  "|",
  "&",
  "\n",
  "'",
  '"',
  "é",
  "😀",
  "\\",
  ")",
  "{",
  ">",
  "<",
  "#",
  "${",
  "~",
  " ",
];

type Mutation =
  | { kind: "insert"; at: number; text: string }
  | { kind: "truncate"; at: number }
  | { kind: "double" };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), text: fc.constantFrom(...INSERTS) }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("double" as const) }),
);

function mutate(base: string, ms: Mutation[]): string {
  let s = base;
  for (const m of ms) {
    if (m.kind === "double") s = `${s} ${s}`;
    else {
      const at = s.length === 0 ? 0 : m.at % (s.length + 1);
      s = m.kind === "insert" ? s.slice(0, at) + m.text + s.slice(at) : s.slice(0, at);
    }
  }
  return s;
}

const mutated = fc
  .tuple(fc.constantFrom(...REALISTIC), fc.array(mutation, { maxLength: 6 }))
  .map(([b, ms]) => mutate(b, ms));
const anyCommand = fc.oneof(
  fc.string({ unit: "binary", maxLength: 120 }),
  fc.string({ maxLength: 120 }),
  mutated,
);
const MODES: PermissionMode[] = ["default", "accept_edits", "explore", "bypass", "dont_ask"];

describe("Bash policy properties", () => {
  it("never throws, whatever the string", () => {
    fc.assert(
      fc.property(anyCommand, fc.constantFrom(...MODES), (command, mode) => {
        const ctx = bashCtx(mode, { allow: ["git:*", "npm run *"], deny: ["curl:*"], ask: ["docker"] });
        const input = { command };
        bash.checkPermissions(input, ctx);
        bash.checkReadOnly(input, ctx);
        bash.matchRule("git *", input, ctx);
        bash.matchRule("rm:*", input, ctx);
        bash.generateSuggestions(input, ctx);
        bash.matchAllowRules?.(ctx.rules.allow, input, ctx);
        const d = checkPermission(bash, input, ctx);
        expect(["allow", "deny", "ask"]).toContain(d.behavior);
      }),
      { numRuns: 1500 },
    );
  });

  it("nothing containing `$(`, a backtick or `<(` is read-only", () => {
    const withDynamic = fc
      .tuple(anyCommand, fc.constantFrom("$(", "`", "<("), fc.nat())
      .map(([s, ins, at]) => {
        const i = at % (s.length + 1);
        return s.slice(0, i) + ins + s.slice(i);
      });
    fc.assert(
      fc.property(withDynamic, (command) => {
        expect(bash.checkReadOnly({ command }, bashCtx())).toBe(false);
      }),
      { numRuns: 1500 },
    );
  });

  it("an rm with recursive and force flags is never allowed in default mode without rules", () => {
    const safe = ["", "ls", "git status", "echo 'a b'", "cat f | grep x", "pwd", "echo é😀", "cd src"];
    const seps = ["&&", "||", ";", "|", "&", "\n", "|&"];
    const flags = [
      "-rf",
      "-fr",
      "-r -f",
      "-Rf",
      "-f -R",
      "--recursive --force",
      "-r --force",
      "--force -R",
      "-rfv",
      "-vfr",
      "--rec --fo",
      "-r x -f",
    ];
    const wrappers = [
      "",
      "sudo ",
      "FOO=1 ",
      "/bin/",
      "env ",
      "env A=1 ",
      "nice -n 5 ",
      "command ",
      "time ",
      "nohup ",
      "xargs ",
      "timeout 5 ",
    ];
    const targets = ["x", "/tmp/x", "'a b'", "build/*", "~/x", '"$HOME/x"', "--", "-- -x"];
    const rmLine = fc
      .tuple(
        fc.constantFrom(...safe),
        fc.constantFrom(...seps),
        fc.constantFrom(...wrappers),
        fc.constantFrom(...flags),
        fc.constantFrom(...targets),
        fc.constantFrom(...seps),
        fc.constantFrom(...safe),
      )
      .map(
        ([pre, s1, w, f, t, s2, post]) =>
          `${pre ? `${pre} ${s1} ` : ""}${w}rm ${f} ${t}${post ? ` ${s2} ${post}` : ""}`,
      );
    fc.assert(
      fc.property(rmLine, (command) => {
        const d = checkPermission(bash, { command }, bashCtx("default"));
        expect(d.behavior, `${JSON.stringify(command)} → ${d.message}`).not.toBe("allow");
        expect(bash.checkReadOnly({ command }, bashCtx())).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});
