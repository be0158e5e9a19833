/**
 * Attack 8, programs named in repository config: git commands the policy auto-allows as
 * read-only must not run core.fsmonitor, core.pager, diff.external or a textconv driver from a
 * repository's config, nor from a bare repository planted as ordinary files. Each program would
 * leave traces whatever identity it runs as: a computed `ran-42-…` line in the command's output
 * and `*-ran` files in /workspace and /tmp. The attack fails when no trace appears.
 */
import { describe, expect, it } from "vitest";
import { type Attacker, globFinds, harnessFor, type Job, jobText, newAttacker, runtimes } from "./support.js";

/** A repository with one commit and a change, then the hostile config (set after the commit). */
const PLANT_REPO = [
  "set -e",
  "cd /workspace",
  "git init -q .",
  "git config user.name attacker",
  "git config user.email attacker@example.invalid",
  "echo one > a.txt",
  "git add a.txt",
  "git commit -qm one",
  "git config core.fsmonitor 'echo ran-$((6*7))-fsm >&2; touch /workspace/fsm-ran /tmp/fsm-ran; true'",
  "git config core.pager 'echo ran-$((6*7))-pager >&2; touch /workspace/pager-ran /tmp/pager-ran; cat'",
  "git config diff.external 'echo ran-$((6*7))-ext; touch /workspace/ext-ran /tmp/ext-ran; true'",
  "git config diff.evil.textconv 'echo ran-$((6*7))-tc; touch /workspace/tc-ran /tmp/tc-ran; cat'",
  "echo '*.txt diff=evil' > .gitattributes",
  "echo two >> a.txt",
  "rm -f /workspace/*-ran /tmp/*-ran",
].join("\n");

/** A repository that is only ordinary files in the worktree (as a clone would bring it). */
const BARE_FILES: Record<string, string> = {
  "/workspace/evil/HEAD": "ref: refs/heads/main\n",
  "/workspace/evil/config":
    '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = /workspace\n\tfsmonitor = "echo ran-$((6*7))-bare >&2; touch /workspace/bare-ran /tmp/bare-ran; true"\n',
  "/workspace/evil/objects/.keep": "",
  "/workspace/evil/refs/heads/.keep": "",
};

/** Plants both repositories, then leaves only a Glob rule: no git command is allowed by rule. */
async function plantedSession(a: Attacker): Promise<void> {
  const { job, out } = await a.script(PLANT_REPO);
  expect(job.status, out).toBe("succeeded");
  for (const [file_path, content] of Object.entries(BARE_FILES)) {
    const w = await a.callAndWait("Write", { file_path, content });
    expect(w.status, jobText(w)).toBe("succeeded");
  }
  await a.setRules({ allow: ["Glob"] });
  const touch = await a.submit("Bash", { command: "touch /workspace/x-ran" });
  expect(touch.job?.status, "the rules did not change").toBe("awaiting_approval");
}

/** What shows that a config program ran: its output in the answer, its files in /workspace or /tmp. */
async function traces(a: Attacker, job: Job): Promise<string[]> {
  const found = [
    ...(jobText(job).match(/ran-42-\w+/g) ?? []),
    await globFinds(a, "*-ran"),
    await globFinds(a, "*-ran", "/tmp"),
  ];
  return found.filter((t) => t !== "");
}

const READ_ONLY = ["git status", "git diff", "git log -p", "git -C /workspace status", "git -C evil status"];
const NOT_READ_ONLY = [
  "git diff --ext-diff",
  // attack22a: spellings that reach git without the reader's own git (reader-bin/git, first on the
  // reader's PATH) or without its command-scope configuration (GIT_CONFIG_COUNT/KEY/VALUE).
  "/usr/bin/git log -p",
  "command -p git diff",
  "env -u PATH git diff",
  "env -i git status",
  "env - git diff",
  "env -u GIT_CONFIG_COUNT git status",
  "time /usr/bin/git diff",
  "git -c core.fsmonitor='touch /workspace/c-ran' status",
  "git diff --output=/workspace/out-ran",
];

describe.each(runtimes)("containment under %s: read-only git runs no program from config", (runtime) => {
  const h = harnessFor(runtime);

  it.each(READ_ONLY)("`%s` runs nothing named in the repository's config", async (command) => {
    const a = await newAttacker(h(), { allow: ["Bash", "Write"] });
    await plantedSession(a);
    const job = await a.callAndWait("Bash", { command });
    expect(await traces(a, job), `${command} (${job.status}) ran config programs`).toEqual([]);
  });

  // The control: if read-only git failed on this repository anyway, the tests above would prove nothing.
  it("read-only git still reads the planted repository", async () => {
    const a = await newAttacker(h(), { allow: ["Bash", "Write"] });
    await plantedSession(a);
    const status = await a.callAndWait("Bash", { command: "git status" });
    expect.soft(status.status, jobText(status)).toBe("succeeded");
    expect.soft(jobText(status)).toContain("a.txt");
    const log = await a.callAndWait("Bash", { command: "git log -p" });
    expect.soft(log.status, jobText(log)).toBe("succeeded");
    expect.soft(jobText(log)).toContain("+one");
  });

  it.each(NOT_READ_ONLY)("`%s` is not auto-allowed", async (command) => {
    const a = await newAttacker(h(), { allow: ["Bash", "Write"] });
    await plantedSession(a);
    const job = await a.callAndWait("Bash", { command });
    expect.soft(job.decision.behavior, `${command}: ${job.decision.message}`).not.toBe("allow");
    expect.soft(job.status).not.toBe("succeeded");
    expect(await traces(a, job), `${command} ran config programs`).toEqual([]);
  });
});

/**
 * attack22a: a submodule's own repository configuration. An inline submodule diff
 * (`--submodule=diff`, or `diff.submodule=diff` in the superproject's config) runs `git diff` in
 * the submodule, whose config reader-bin/git never looked at: its diff.external and clean filter ran.
 */
const PLANT_SUBMODULE = [
  "set -e",
  "cd /workspace",
  "git init -q .",
  "git config user.name attacker",
  "git config user.email attacker@example.invalid",
  "mkdir sub",
  "git -C sub init -q .",
  "echo one > sub/a.txt",
  "git -C sub add a.txt",
  "git -C sub -c user.name=a -c user.email=a@example.invalid commit -qm one",
  "git add sub 2>/dev/null",
  "printf '[submodule \"sub\"]\\n\\tpath = sub\\n\\turl = ./sub\\n' > .gitmodules",
  "git add .gitmodules",
  "git commit -qm super",
  "git -C sub config filter.evil.clean 'echo ran-$((6*7))-subclean >&2; touch /workspace/subclean-ran /tmp/subclean-ran; cat'",
  "git -C sub config diff.evil.textconv 'echo ran-$((6*7))-subtc; touch /workspace/subtc-ran /tmp/subtc-ran; cat'",
  "git -C sub config diff.external 'echo ran-$((6*7))-subext; touch /workspace/subext-ran /tmp/subext-ran; true'",
  "echo '*.txt filter=evil diff=evil' > sub/.gitattributes",
  "echo two >> sub/a.txt",
  "rm -f /workspace/*-ran /tmp/*-ran",
].join("\n");

describe.each(runtimes)(
  "containment under %s: read-only git runs no program from a submodule's config",
  (runtime) => {
    const h = harnessFor(runtime);

    async function plantedSubmodule(superConfig = "") {
      const a = await newAttacker(h(), { allow: ["Bash", "Write"] });
      const { job, out } = await a.script(`${PLANT_SUBMODULE}\n${superConfig}`);
      expect(job.status, out).toBe("succeeded");
      await a.setRules({ allow: ["Glob"] });
      return a;
    }

    it.each(["git status", "git diff", "git log -p", "git -C sub diff"])(
      "`%s` runs nothing named in the submodule's config",
      async (command) => {
        const a = await plantedSubmodule();
        const job = await a.callAndWait("Bash", { command });
        expect(job.decision.behavior).toBe("allow");
        expect(await traces(a, job), `${command} (${job.status}) ran config programs`).toEqual([]);
      },
    );

    it.each(["git diff --submodule=diff", "git log -p --submodule=diff", "git show --submodule=diff"])(
      "`%s` is not auto-allowed",
      async (command) => {
        const a = await plantedSubmodule();
        const job = await a.callAndWait("Bash", { command });
        expect.soft(job.decision.behavior, `${command}: ${job.decision.message}`).not.toBe("allow");
        expect(await traces(a, job), `${command} ran config programs`).toEqual([]);
      },
    );

    it.each(["git diff", "git log -p", "git show"])(
      "`%s` runs nothing from the submodule when the superproject's config asks for inline submodule diffs",
      async (command) => {
        const a = await plantedSubmodule("git config diff.submodule diff");
        const job = await a.callAndWait("Bash", { command });
        expect(job.decision.behavior).toBe("allow");
        expect(await traces(a, job), `${command} (${job.status}) ran config programs`).toEqual([]);
      },
    );
  },
);
