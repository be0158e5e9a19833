import { describe, expect, it } from "vitest";
import { analyseBash, MAX_COMMAND_LENGTH } from "../../../src/permission/bash/analysis.js";
import { checkPermission } from "../../../src/permission/engine.js";
import { bash, bashCtx, CWD, HOME } from "./context.js";

const UNANALYSABLE = "Safety check: command cannot be statically analyzed";

describe("the Bash policy never throws", () => {
  it("asks, immune and without parsing, for a command over 64 KiB", () => {
    const command = `echo ${"a".repeat(MAX_COMMAND_LENGTH)}`;
    expect(bash.checkPermissions({ command }, bashCtx())).toEqual({
      behavior: "ask",
      message: "Permission required: Command is longer than 65536 characters and cannot be analysed",
      reason: UNANALYSABLE,
      bypassImmune: true,
    });
    expect(bash.checkReadOnly({ command }, bashCtx())).toBe(false);
    expect(checkPermission(bash, { command }, bashCtx("default", { allow: ["echo:*"] })).behavior).toBe(
      "ask",
    );
  });

  it("analyses a command of exactly 65536 characters", () => {
    const command = `ls ${"a".repeat(MAX_COMMAND_LENGTH - 3)}`;
    expect(command.length).toBe(MAX_COMMAND_LENGTH);
    expect(bash.checkPermissions({ command }, bashCtx()).behavior).toBe("allow");
  });

  it.each([42, null, ["ls"], { a: 1 }, true])("treats a non-string command %j safely", (command) => {
    const d = bash.checkPermissions({ command }, bashCtx());
    if (command === null) expect(d.message).toBe("Empty command");
    else expect(d).toMatchObject({ behavior: "ask", bypassImmune: true, reason: UNANALYSABLE });
    expect(bash.checkReadOnly({ command }, bashCtx())).toBe(false);
    expect(bash.generateSuggestions({ command }, bashCtx())).toEqual([]);
    expect(() => bash.matchRule("ls", { command }, bashCtx())).not.toThrow();
  });

  it.each([
    "\u0000\u0001\u0002",
    "\ud800 lone surrogate",
    "ls 'unterminated",
    'echo "unterminated $(',
    "))))((((",
    "<<<<<<>>>>>>",
    "a".repeat(5000),
    "$(".repeat(2000),
    "`".repeat(3001),
    "{".repeat(3000) + "}".repeat(2999),
    "case",
    "cat <<EOF",
    "\\",
    "ls\r\nrm -rf /",
  ])("decides garbled input %#", (command) => {
    const d = bash.checkPermissions({ command }, bashCtx());
    expect(["allow", "ask", "passthrough", "deny"]).toContain(d.behavior);
    expect(() => bash.generateSuggestions({ command }, bashCtx())).not.toThrow();
    expect(() => bash.matchAllowRules?.([], { command }, bashCtx())).not.toThrow();
  });
});

describe("syntax errors", () => {
  it.each(["ls )", 'echo "unterminated', "ls &&", "rm -rf x\n)", "$($($("])(
    "%j is a safety ASK",
    (command) => {
      expect(bash.checkPermissions({ command }, bashCtx())).toEqual({
        behavior: "ask",
        message: "Permission required: Command has a syntax error and cannot be statically analyzed",
        reason: UNANALYSABLE,
        bypassImmune: true,
      });
      expect(bash.checkReadOnly({ command }, bashCtx())).toBe(false);
    },
  );

  it("asks, immune, when nesting is too deep to analyse", () => {
    const d = bash.checkPermissions({ command: `${"ls && ".repeat(10_000)}ls` }, bashCtx());
    expect(d).toMatchObject({ behavior: "ask", bypassImmune: true });
  });
});

describe("analysis: splitting and offsets", () => {
  it.each([
    ["a && b || c ; d | e |& f & g\nh", ["a", "b", "c", "d", "e", "f", "g", "h"]],
    ["echo ééé && rm ~/.bashrc", ["echo ééé", "rm ~/.bashrc"]],
    ["echo 😀 | wc -c; ls", ["echo 😀", "wc -c", "ls"]],
    ["echo x > f && ls 2>/dev/null", ["echo x > f", "ls 2>/dev/null"]],
  ])("%j → %j", (command, texts) => {
    expect(analyseBash(command, CWD, HOME).commands.map((c) => c.text)).toEqual(texts);
  });

  it("resolves names through assignments, wrappers and paths", () => {
    const [cmd] = analyseBash("FOO=1 sudo -u root nice -n 5 /bin/rm -r x", CWD, HOME).commands;
    expect(cmd).toMatchObject({ name: "rm", wrappers: ["sudo", "nice"], assignments: ["FOO"] });
    expect(cmd?.args.map((a) => a.value)).toEqual(["-r", "x"]);
  });

  it("removes quotes, expands home, marks other expansions unknown", () => {
    const [cmd] = analyseBash(`cp "a b" 'c' ~/x $HOME/y "$HOME/z" $X/w a\\ b`, CWD, HOME).commands;
    expect(cmd?.args.map((a) => a.value)).toEqual([
      "a b",
      "c",
      "/home/agent/x",
      "/home/agent/y",
      "/home/agent/z",
      null,
      "a b",
    ]);
  });

  it("tracks cd for relative targets", () => {
    const cmds = analyseBash("cd /etc && touch a; cd - && touch b", CWD, HOME).commands;
    // Stricter than before (docs/permission.md#deliberate-changes-to-the-reference-behaviour): after `;` the
    // first `cd` may have failed, so the directory of `cd -` is unknown (it was taken to be /etc).
    expect(cmds.map((c) => c.cwd)).toEqual([CWD, "/etc", null, null]);
  });
});
