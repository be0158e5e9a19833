import { describe, expect, it } from "vitest";
import { analyseBash } from "../../../src/permission/bash/analysis.js";
import { checkPermission } from "../../../src/permission/engine.js";
import { bash, bashCtx, CWD, HOME } from "./context.js";

const inAcceptEdits = (command: string) =>
  checkPermission(bash, { command }, bashCtx("accept_edits")).behavior;

// Family 8 of issue 15: ACCEPT_EDITS follows every `cd` exactly or asks, reads every target
// form of the file commands, and asks for brace and glob targets.
describe("accept_edits: cd is followed exactly, or the line asks", () => {
  it.each([
    "command cd /tmp && touch x",
    "time cd /tmp && touch x",
    "CDPATH=/tmp cd evil && touch x",
    // Our own cases.
    "builtin cd /tmp && touch x",
    "env cd /tmp && touch x",
    "cd - && touch x",
    "cd && touch x",
    "cd ~ && touch x",
    "popd && touch x",
    "pushd && touch x",
    "pushd +1 && touch x",
    "pushd /tmp && touch x",
    "cd /tm[p] && touch x",
    "cd {/tmp,x} && touch x",
    "cd $D && touch x",
    "cd -P /tmp && touch x",
    "cd -- /tmp && touch x",
    "cd src/../.. && touch x",
    "cd a b && touch x",
    "cd /workspace/a; touch ../../x",
    "cd /workspace/a || touch ../../x",
    "cd /workspace/a && touch y || touch ../../x",
    "cd /workspace/a && touch y; touch ../../x",
    "cd /workspace/a | touch ../../x",
    "cd /workspace/a\ntouch ../../x",
    "eval cd /tmp && touch x",
    "OLDPWD=/tmp cd - && touch x",
  ])("%j is asked", (command) => {
    expect(inAcceptEdits(command)).not.toBe("allow");
  });

  it.each([
    "cd src && touch x",
    "cd /workspace/a && touch ../x",
    "cd -P src && mkdir -p b",
    "cd -- src && touch x",
    "cd src && cd lib && touch x",
    "command cd /tmp && touch /workspace/x",
    "cd /tmp; touch /workspace/x",
  ])("%j is allowed: followed exactly, or every target absolute and inside", (command) => {
    expect(inAcceptEdits(command)).toBe("allow");
  });

  it("knows where each command runs", () => {
    const cwds = (c: string) => analyseBash(c, CWD, HOME).commands.map((x) => x.cwd);
    expect(cwds("cd a && cd b && touch x")).toEqual([CWD, `${CWD}/a`, `${CWD}/a/b`]);
    expect(cwds("command cd /tmp && touch x")).toEqual([CWD, null]);
    expect(cwds("cd a; touch x")).toEqual([CWD, null]);
    expect(cwds("touch y; cd a && touch x")).toEqual([CWD, CWD, `${CWD}/a`]);
    expect(cwds("cd && touch x")).toEqual([CWD, HOME]);
    expect(cwds("pushd a && touch x")).toEqual([CWD, `${CWD}/a`]);
    expect(cwds("pushd && touch x")).toEqual([CWD, null]);
  });
});

describe("accept_edits: every target form of the file commands", () => {
  it.each([
    "cp --target=/tmp f",
    "cp -vt/tmp f",
    'sed "-i/tmp/*" s/a/b/ f',
    // Our own cases.
    "cp --target-directory=/tmp f",
    "cp --target-directory /tmp f",
    "cp --targ /tmp f",
    "cp --t=/tmp f",
    "cp -t /tmp f",
    "cp -t/tmp f",
    "cp -rvt /tmp f",
    "mv -t /tmp f",
    "mv --target=/tmp f",
    "mv -ft/tmp f",
    "cp f -t /tmp",
    "cp -- f /tmp",
    "cp --parents ../../x d",
    "cp -S /../../tmp/x --backup f g",
    "cp --suffix=/tmp/x -b f g",
    "mv -S/tmp/x -b f g",
    "cp --no-such-option f g",
    "cp --re f g",
    "rm --no-such x",
    "touch -r /etc/passwd x",
    "touch --reference=/etc/x y",
    "mkdir /tmp/x",
    "mkdir -m 700 /tmp/x",
    "rmdir /tmp/x",
    "rm -v /tmp/x",
    "sed -i/tmp/x s/a/b/ f",
    "sed --in-place=/tmp/* s/a/b/ f",
    "sed -i.bak/x s/a/b/ f",
    "sed -i --follow-symlinks s/a/b/ f",
    "sed -i s/a/b/ /tmp/f",
    "sed -i 's/a/b/w /tmp/x' f",
    'sed -i "s/a/$X/" f',
    "./touch x",
    "bin/mkdir x",
    "PATH=/w/bin mkdir x",
    "BASH_CMDS[mkdir]=/w/x; mkdir y",
    "LD_PRELOAD=/w/x.so touch y",
    "touch x &",
    "mkdir x; ls &",
    "xargs touch < list",
    "sudo touch x",
    "cp $SRC x",
    "touch x > /tmp/log",
  ])("%j is asked", (command) => {
    expect(inAcceptEdits(command)).not.toBe("allow");
  });

  it.each([
    "cp -t sub f g",
    "cp -vt sub f",
    "cp --target-directory=sub f",
    "mv -f a b",
    "mv --backup=numbered a b",
    "cp -S .orig --backup a b",
    "cp -a src dst",
    "touch -t 202401010000 f",
    "touch -d '2 days ago' f",
    "touch -r ref f",
    "mkdir -p -m 755 a/b",
    "rm -f a b",
    "rmdir --ignore-fail-on-non-empty d",
    "sed -i.bak s/a/b/ f",
    "sed -i~ s/a/b/ f",
    "sed --in-place=.orig -e s/a/b/ f",
    "LC_ALL=C sed -i s/a/b/ f",
    "/bin/mkdir x",
  ])("%j is allowed: every target read and inside", (command) => {
    expect(inAcceptEdits(command)).toBe("allow");
  });

  // attack25b: a locale or zone value that is a path makes the file command read the agent's
  // message catalogue (its format strings) or zone file.
  it.each([
    "LANGUAGE=../../../workspace/l mkdir d",
    "LC_ALL=/workspace/l sed -i s/a/b/ f",
    "TZ=/workspace/z touch f",
  ])("%j is not auto-allowed", (command) => {
    expect(inAcceptEdits(command)).not.toBe("allow");
  });
});

describe("layer 4 reads install and ln targets by their real options too", () => {
  it.each([
    ["install -t .git/hooks x", ".git/hooks"],
    ["install -Dt.git/hooks x", ".git/hooks"],
    ["install --target=.git/hooks x", ".git/hooks"],
    ["ln -sft ~/.ssh x", "~/.ssh"],
    ["ln -s x --target-dir ~/.ssh", "~/.ssh"],
    ["ln -s /tmp/x .env", ".env"],
    ["cp -vt.git/hooks x", ".git/hooks"],
    ["mv --targ=.vscode x", ".vscode"],
  ])("%j is a safety ASK (%s)", (command, path) => {
    const d = checkPermission(
      bash,
      { command },
      bashCtx("default", { allow: ["install:*", "ln:*", "cp:*", "mv:*"] }),
    );
    expect(d.behavior).toBe("ask");
    expect(d.message).toContain(`sensitive paths: ${path}`);
  });
});

describe("accept_edits and layer 4: brace and glob targets", () => {
  it.each([
    "touch {/tmp/x,}",
    "cp hook {.git/hooks/pre-commit,}",
    "cp x .en[v]",
    "cp cfg .gi[t]/config",
    // Our own cases.
    "touch x{1,2}",
    "rm *.log",
    "rm build/*",
    "cp a 'x'*",
    "mv ?.txt d",
    "touch {a..c}",
  ])("%j is asked in accept_edits", (command) => {
    expect(inAcceptEdits(command)).not.toBe("allow");
  });

  it.each([
    ["cp x .en[v]", ".en[v]"],
    ["cp cfg .gi[t]/config", ".gi[t]/config"],
    ["cp hook {.git/hooks/pre-commit,}", "{.git/hooks/pre-commit,}"],
    ["touch .gi{t,x}/config", ".gi{t,x}/config"],
    ["cp x ~/.bash?c", "~/.bash?c"],
    ["mv x .ssh/authorized_key*", ".ssh/authorized_key*"],
    ["cp x .[e]nv", ".[e]nv"],
    ["cp x {a,b}/.en[v]", "{a,b}/.en[v]"],
  ])("%j is a safety ASK even with an allow rule (%s)", (command, path) => {
    const d = checkPermission(bash, { command }, bashCtx("default", { allow: ["cp:*", "mv:*", "touch:*"] }));
    expect(d.behavior).toBe("ask");
    expect(d.message).toContain(`sensitive paths: ${path}`);
  });

  it.each(["cp x *.txt", "touch build/*", "cp x '.en'", "touch x{1,2}.txt"])(
    "%j is not a sensitive path: `*` never matches a leading dot",
    (command) => {
      const d = checkPermission(bash, { command }, bashCtx("default", { allow: ["cp:*", "touch:*"] }));
      expect(d.behavior).toBe("allow");
    },
  );
});

// attack22c: git's XDG configuration (`.config/git`) is a run of two segments, so a copy or move
// whose destination is `~/.config` places a `git` directory (or the contents of one) there without
// ever naming the run: the destination that is the start of a dangerous run counts as one.
describe("accept_edits: a copy or move into the start of a dangerous run (attack22c)", () => {
  const homeIsWorking = (command: string, rules: { allow?: string[] } = {}) =>
    checkPermission(bash, { command }, bashCtx("accept_edits", rules, { workingDirectories: [HOME] }));

  it.each([
    ["mv /workspace/y/git ~/.config/", "~/.config/"],
    ["mv /workspace/y/git ~/.config", "~/.config"],
    ["cp -r /workspace/y/git ~/.config", "~/.config"],
    ["cp -rt ~/.config /workspace/y/git", "~/.config"],
    ["cp -r --target-directory=/home/agent/.config /workspace/y/git", "/home/agent/.config"],
    ["cp -rT /workspace/x ~/.config", "~/.config"],
    ["mv -T /workspace/x ~/.config", "~/.config"],
    ["cp -r /workspace/x/. ~/.config", "~/.config"],
    ["mkdir -p ~/.config && mv /workspace/y/git ~/.config", "~/.config"],
    ["cd ~/.config && mv /workspace/y/git .", "."],
    ["cp -r /workspace/y/git ~/.CONFIG//", "~/.CONFIG//"],
  ])("%j is a safety ASK even with an allow rule (%s)", (command, path) => {
    expect(homeIsWorking(command).behavior).toBe("ask");
    const d = homeIsWorking(command, { allow: ["cp:*", "mv:*", "install:*", "mkdir:*"] });
    expect(d.behavior).toBe("ask");
    expect(d.message).toContain(`sensitive paths: ${path}`);
    // A rule-allowed command runs as the agent, which can write the home (the editor cannot):
    // the safety ask is what stops it, working directory or not.
    const byRule = checkPermission(
      bash,
      { command },
      bashCtx("default", { allow: ["cp:*", "mv:*", "mkdir:*"] }),
    );
    expect(byRule.behavior).toBe("ask");
  });

  it.each([
    "cp -r /workspace/y/git ~/.configs",
    "mv /workspace/y/git ~/config/",
    "cp -r /workspace/y ~/notes",
    "mkdir -p ~/.config",
    "touch ~/.config/app.json",
  ])("%j is still allowed", (command) => {
    expect(homeIsWorking(command).behavior).toBe("allow");
  });
});

describe("accept_edits: a NUL in `$'…'` ends the word as bash ends it (attack26a)", () => {
  it.each([
    "mv evil $'sub/.git\\x00'",
    "cp -r evil $'sub/.git\\0x'",
    "mkdir -p $'sub/.git\\x00/hooks'",
    "touch $'.git\\u0000/x'",
    "cp cfg $'.bashrc\\x00'",
    "sed -i 's/a/b/' $'.env\\x00'",
  ])("%j is not auto-allowed (the plain spelling is a safety ask)", (command) => {
    expect(inAcceptEdits(command)).toBe("ask");
  });

  it("a NUL after an ordinary name is still allowed", () => {
    expect(inAcceptEdits("mv a $'b\\x00'")).toBe("allow");
  });
});
