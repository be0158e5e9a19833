import { describe, expect, it } from "vitest";
import { bash, bashCtx } from "./context.js";

const readOnly = (command: string) => bash.checkReadOnly({ command }, bashCtx());

describe("checkReadOnly: strict", () => {
  it.each([
    "ls",
    "ls -la /etc",
    "cat a b",
    "head -n 5 f",
    "tail -f log",
    "wc -l f",
    "grep -rn foo src",
    "rg foo",
    "find . -name '*.ts'",
    "find . -type f -print",
    "tree -L 2",
    "pwd",
    "which node",
    "echo hi",
    "printf '%s' x",
    "true",
    "cd src && ls",
    "git status",
    "git log --oneline -n 5",
    "git diff HEAD~1",
    "git show HEAD:file",
    "git branch",
    "git branch -a",
    "git branch -vv",
    "git branch --list 'feat*'",
    "git branch --contains HEAD",
    "git tag",
    "git tag -l 'v1.*'",
    "git remote",
    "git remote -v",
    "git remote show origin",
    "git remote get-url origin",
    "git config --get user.name",
    "git config --list",
    "git --no-pager log",
    "git reflog",
    "docker ps -a",
    "gh pr list",
    "npm ls --depth=0",
    "pip show requests",
    "python --version",
    "node -v",
    "ls 2>/dev/null",
    "ls > /dev/null 2>&1",
    "cat < input.txt",
    // Stricter than the reference (docs/permission.md#deliberate-changes-to-the-reference-behaviour): only
    // allowlisted prefixes (was `FOO=bar ls`).
    "LC_ALL=C ls",
    "ls\npwd",
    "cat f | grep x | wc -l",
    "find . -name x | xargs grep y",
    "/bin/ls",
    "/usr/bin/cat f",
    // A quoted `>` is not a redirect (a deliberate change); the reference refused any `>`.
    'grep ">" f',
    // attack22a: these keep the reader's git (found through PATH, its GIT_CONFIG_* kept).
    "git log -p",
    "env LC_ALL=C git diff",
    "command git status",
    "time git log",
    "command -pv git",
  ])("%j is read-only", (command) => {
    expect(readOnly(command)).toBe(true);
  });

  it.each([
    "",
    "   ",
    "rm x",
    "tee f",
    "echo x | tee /etc/passwd",
    "ls & rm x",
    "ls\nrm -rf /",
    "ls; touch x",
    "find . -delete",
    "find . -exec rm {} \\;",
    "find . -execdir x \\;",
    "find . -ok rm {} \\;",
    "find . -fprint out",
    "find . -fls out",
    "find . $ACTION",
    "git branch -D x",
    "git branch -d x",
    "git branch -m a b",
    "git branch newname",
    "git branch -u origin/main",
    "git branch --set-upstream-to=o/m",
    "git tag -d v1",
    "git tag v2",
    "git tag -a v2 -m x",
    "git remote add o url",
    "git remote remove o",
    "git remote set-url o u",
    "git config user.name x",
    "git config --get x --unset y",
    "git log --output=f",
    "git diff --output f",
    "git grep -O foo",
    "git reflog expire --all",
    "git push",
    "git -c core.pager=sh log",
    "python --version -c 'import os'",
    "rg --pre sh foo",
    "tree -o out",
    "file -C -m magic",
    // Stricter than the reference (a deliberate change): any other prefix, any assignment, any `&`.
    "FOO=bar ls",
    "export A=1 && ls",
    "ls & pwd",
    "ls > out.txt",
    "ls >> out.txt",
    "ls &> out.txt",
    "ls >| out.txt",
    "ls 2> err.txt",
    "ls >&out.txt",
    "ls $(id)",
    "ls `id`",
    "echo \u0024{HOME}",
    "[ -f x ]",
    "for ((;;)); do ls; done",
    "PATH=/tmp ls",
    "LD_PRELOAD=x.so cat f",
    "export PATH=.:$PATH && ls",
    "GIT_EXTERNAL_DIFF=sh git diff",
    "./ls",
    "bin/cat f",
    "sudo ls",
    "nohup ls",
    "time -o out ls",
    "export A=1",
    "echo 'unterminated",
    "ls )",
    "bash -c ls",
    // attack22a. The reader's git protections live in its environment: reader-bin/git first on
    // its PATH (textconv and filters made `cat`, --no-ext-diff) and GIT_CONFIG_COUNT/KEY/VALUE
    // (fsmonitor, pager, hooks, protocols off). A spelling that reaches git past them.
    "/usr/bin/git log -p",
    "/bin/git diff",
    "time /usr/bin/git diff",
    "nice /usr/bin/git status",
    "command -p git diff",
    "command -p ls",
    "env -i git status",
    "env --ignore-environment git status",
    "env -u PATH git diff",
    "env -uPATH git diff",
    "env --unset=GIT_CONFIG_COUNT git status",
    "env -vu GIT_CONFIG_COUNT git status",
    "env -u GIT_CONFIG_COUNT git status",
    // attack22a. Bash opens /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT as sockets, even for `<`;
    // the descriptor goes both ways, so `>&N` writes to it: a reader talking to a server on loopback.
    "cat < /dev/tcp/127.0.0.1/80",
    "echo hi 3</dev/tcp/127.0.0.1/8765 >&3",
    "printf x 0</dev/tcp/127.0.0.1/8765 >&0",
    "cat f 3</dev/udp/127.0.0.1/53 1>&3",
    "cat <'/dev/tcp/127.0.0.1/80'",
    'cat <"/dev/"tcp/127.0.0.1/80',
    "{ cat; } </dev/tcp/127.0.0.1/80",
    "cat <<< x </dev/tcp/127.0.0.1/80",
  ])("%j is not read-only", (command) => {
    expect(readOnly(command)).toBe(false);
  });

  it("never lets `$(`, backticks or `<(` through", () => {
    for (const c of ["cat <(ls)", 'echo "$(ls)"', "echo `ls`"]) expect(readOnly(c)).toBe(false);
  });

  it("is false for non-string commands", () => {
    expect(bash.checkReadOnly({ command: 42 }, bashCtx())).toBe(false);
    expect(bash.checkReadOnly({ command: ["ls"] }, bashCtx())).toBe(false);
  });
});
