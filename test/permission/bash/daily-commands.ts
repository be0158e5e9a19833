/**
 * Fifty commands agents run every day. Default mode with no rules allowed 45 of them before the
 * read-only-by-construction work (main at ef398d2); the 5 marked `gained` were asked only
 * because a `>` inside quotes was taken for a redirect. Now all 50 are allowed.
 */
export interface DailyCommand {
  command: string;
  allowed: boolean;
  /** Asked before (a quoted `>`/`<` read as a redirect), allowed now. */
  gained?: true;
}

export const DAILY_COMMANDS: readonly DailyCommand[] = [
  { command: "git status", allowed: true },
  { command: "git status --short", allowed: true },
  { command: "git diff", allowed: true },
  { command: "git diff --stat", allowed: true },
  { command: "git diff --cached", allowed: true },
  { command: "git diff HEAD~1 -- src/index.ts", allowed: true },
  { command: "git log --pretty='%an <%ae>' -5", allowed: true, gained: true },
  { command: "git log --oneline -20", allowed: true },
  { command: "git log --oneline --graph --decorate -n 30", allowed: true },
  { command: "git log -p -n 3 -- src/app.ts", allowed: true },
  { command: "git log --format='%h -> %s' -n 10", allowed: true, gained: true },
  { command: "git log --since='2 weeks ago' --author=alice --oneline", allowed: true },
  { command: "git log --oneline | head -20", allowed: true },
  { command: "git show HEAD --stat", allowed: true },
  { command: "git show HEAD:package.json", allowed: true },
  { command: "git branch -a", allowed: true },
  { command: "git branch --show-current", allowed: true },
  { command: "git rev-parse --abbrev-ref HEAD", allowed: true },
  { command: "git rev-parse --show-toplevel", allowed: true },
  { command: "git blame -L 10,40 src/index.ts", allowed: true },
  { command: "git ls-files | head -50", allowed: true },
  { command: "git remote -v", allowed: true },
  { command: "git tag -l 'v*'", allowed: true },
  { command: 'git grep -n "TODO" -- src', allowed: true },
  { command: "ls", allowed: true },
  { command: "ls -la", allowed: true },
  { command: "ls -la src", allowed: true },
  { command: "ls src/*.ts", allowed: true },
  { command: "cat package.json", allowed: true },
  { command: "cat src/index.ts | head -50", allowed: true },
  { command: "head -n 40 README.md", allowed: true },
  { command: "tail -n 100 logs/app.log", allowed: true },
  { command: "wc -l src/*.ts", allowed: true },
  { command: "rg -n foo src", allowed: true },
  { command: 'rg -n "=>" src', allowed: true, gained: true },
  { command: "rg --files | head", allowed: true },
  { command: "rg -l 'import React' --type ts", allowed: true },
  { command: 'rg -n -C 3 "useEffect" src/components', allowed: true },
  { command: 'grep -rn "<div>" src', allowed: true, gained: true },
  { command: "grep -rn TODO --include='*.ts' .", allowed: true },
  { command: 'rg -n "Promise<void>" src', allowed: true, gained: true },
  { command: "find . -name '*.ts'", allowed: true },
  { command: "find . -type f -name '*.py' -not -path './venv/*'", allowed: true },
  { command: "find . -name '*.log' | xargs grep -l ERROR", allowed: true },
  { command: "tree -L 2 src", allowed: true },
  { command: "pwd", allowed: true },
  { command: "cd src && ls -la", allowed: true },
  { command: "node --version", allowed: true },
  { command: "echo $HOME", allowed: true },
  { command: "ls -la 2>/dev/null | wc -l", allowed: true },
];
