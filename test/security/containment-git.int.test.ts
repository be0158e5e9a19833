/**
 * Attack 8, programs named in repository config: git commands the policy auto-allows as
 * read-only must not run core.fsmonitor, core.pager, diff.external or a textconv driver from a
 * repository's config, nor from a bare repository planted as ordinary files. Each program would
 * leave traces whatever identity it runs as: a computed `ran-42-…` line in the command's output
 * and `*-ran` files in /workspace and /tmp. The attack fails when no trace appears.
 */
import { describe, expect, it } from "vitest";
import type { Harness } from "../support/harness.js";
import {
  type Attacker,
  globFinds,
  harnessFor,
  type Job,
  jobText,
  newAttacker,
  runtimes,
  sharedAttackers,
} from "./support.js";

// Each describe prepares a session once per planted repository and runs every command of its
// tests there (sharedAttackers): a command either is refused (it never runs) or runs as the
// reader, which cannot write the workspace; a program that did run leaves traces that fail it
// and every later test.

/** A repository with one commit and a change, then the hostile config (set after the commit). */
/** A repository in /workspace with one commit of a.txt ("one"). */
const INIT_REPO = [
  "set -e",
  "cd /workspace",
  "git init -q .",
  "git config user.name attacker",
  "git config user.email attacker@example.invalid",
  "echo one > a.txt",
  "git add a.txt",
  "git commit -qm one",
];

const PLANT_REPO = [
  ...INIT_REPO,
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
  const shared = sharedAttackers(h);
  const planted = () =>
    shared("repo", async (hh) => {
      const a = await newAttacker(hh, { allow: ["Bash", "Write"] }, { kept: true });
      await plantedSession(a);
      return a;
    });

  it.each(READ_ONLY)("`%s` runs nothing named in the repository's config", async (command) => {
    const a = await planted();
    const job = await a.callAndWait("Bash", { command });
    expect(await traces(a, job), `${command} (${job.status}) ran config programs`).toEqual([]);
  });

  // The control: if read-only git failed on this repository anyway, the tests above would prove nothing.
  it("read-only git still reads the planted repository", async () => {
    const a = await planted();
    const status = await a.callAndWait("Bash", { command: "git status" });
    expect.soft(status.status, jobText(status)).toBe("succeeded");
    expect.soft(jobText(status)).toContain("a.txt");
    const log = await a.callAndWait("Bash", { command: "git log -p" });
    expect.soft(log.status, jobText(log)).toBe("succeeded");
    expect.soft(jobText(log)).toContain("+one");
  });

  it.each(NOT_READ_ONLY)("`%s` is not auto-allowed", async (command) => {
    const a = await planted();
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
    const shared = sharedAttackers(h);
    const plantedSubmodule = (superConfig = "") => plantedBy(shared, `${PLANT_SUBMODULE}\n${superConfig}`);

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

/**
 * The describe's session whose workspace `plant` prepared (run as the agent), then only Glob
 * allowed: no rule covers git.
 */
function plantedBy(shared: ReturnType<typeof sharedAttackers>, plant: string): Promise<Attacker> {
  return shared(plant, async (h: Harness) => {
    const a = await newAttacker(h, { allow: ["Bash", "Write"] }, { kept: true });
    const { job, out } = await a.script(plant);
    expect(job.status, out).toBe("succeeded");
    await a.setRules({ allow: ["Glob"] });
    return a;
  });
}

/** Runs `command`, which the policy must auto-allow, and checks that nothing of the agent's ran. */
async function runsNothingPlanted(a: Attacker, command: string): Promise<Job> {
  const job = await a.callAndWait("Bash", { command });
  expect(job.decision.behavior).toBe("allow");
  expect(await traces(a, job), `${command} (${job.status}) ran a planted program`).toEqual([]);
  return job;
}

/**
 * attack25b: a submodule's clean filter when `git status` must read a file to know whether it
 * changed (same size, another mtime). The superproject's git runs `git status` in the submodule;
 * under the real git's exec path that was the real git, so reader-bin/git never saw the
 * submodule's configuration and its clean filter ran. (A change of size, as above, is seen from
 * the file's size alone: no filter runs, which is why the test above passed.)
 */
const SAME_SIZE_CHANGE =
  "echo uno > sub/a.txt\ntouch -d 2001-01-01 sub/a.txt\nrm -f /workspace/*-ran /tmp/*-ran";

describe.each(runtimes)(
  "containment under %s: a submodule's clean filter, when git must read the file",
  (runtime) => {
    const h = harnessFor(runtime);
    const shared = sharedAttackers(h);

    it.each(["git status", "git diff", "git status --porcelain"])(
      "`%s` runs nothing named in the submodule's config",
      async (command) => {
        const a = await plantedBy(shared, `${PLANT_SUBMODULE}\n${SAME_SIZE_CHANGE}`);
        const job = await runsNothingPlanted(a, command);
        // The control: the submodule's change is still seen (the filter became `cat`).
        expect(jobText(job)).toMatch(/sub/);
      },
    );
  },
);

/**
 * attack25b: a driver whose name holds `=` (`*.txt diff=a=b`: an attribute's value runs to the
 * next blank). reader-bin/git passed its overrides as `-c diff.a=b.textconv=cat`, which git splits
 * at the first `=` (it set `diff.a`), so the driver kept its textconv and its clean filter.
 */
const PLANT_EQUALS_DRIVER = [
  ...INIT_REPO,
  "git config 'diff.a=b.textconv' 'echo ran-$((6*7))-eqtc; touch /workspace/eqtc-ran /tmp/eqtc-ran; cat'",
  "git config 'filter.c=d.clean' 'echo ran-$((6*7))-eqclean >&2; touch /workspace/eqclean-ran /tmp/eqclean-ran; cat'",
  "git config 'diff.e f.textconv' 'echo ran-$((6*7))-sptc; touch /workspace/sptc-ran /tmp/sptc-ran; cat'",
  "printf '*.txt diff=a=b filter=c=d\\n' > .gitattributes",
  "git add .gitattributes",
  "git commit -qm attrs",
  "echo two > a.txt",
  "touch -d 2001-01-01 a.txt",
  "rm -f /workspace/*-ran /tmp/*-ran",
].join("\n");

describe.each(runtimes)("containment under %s: a driver named with `=`", (runtime) => {
  const h = harnessFor(runtime);
  const shared = sharedAttackers(h);

  it.each(["git diff", "git log -p", "git show HEAD~1", "git status", "git blame a.txt"])(
    "`%s` runs neither its textconv nor its clean filter",
    async (command) => {
      const job = await runsNothingPlanted(await plantedBy(shared, PLANT_EQUALS_DRIVER), command);
      expect(job.status, jobText(job)).toBe("succeeded");
    },
  );
});

/**
 * attack26a: a merge driver. `--remerge-diff` (and `--diff-merges=remerge`, or `-m` under a
 * repository's `log.diffMerges=remerge`) redoes each merge in memory, and a file both sides changed
 * goes through the `merge=<driver>` attribute's `merge.<driver>.driver`, a shell command from the
 * repository's config that reader-bin/git left alone. Its objects go to a temporary directory
 * under .git/objects, which the agent opens to the reader first (its own files: chmod).
 */
const PLANT_MERGE_DRIVER = [
  ...INIT_REPO,
  "mkdir r && cd r && git init -q . && chmod 777 .",
  "git config user.name attacker && git config user.email attacker@example.invalid",
  "printf '1\\n2\\n3\\n' > m.txt",
  "git add m.txt && git commit -qm base",
  "git checkout -qb side && printf '1\\n2\\nside\\n' > m.txt && git commit -qam side",
  "git checkout -q - && printf 'main\\n2\\n3\\n' > m.txt && git commit -qam main",
  "git merge -q side -m merged",
  "echo '*.txt merge=evil' > .git/info/attributes",
  "git config merge.evil.driver 'echo ran-$((6*7))-merge >&2; touch /workspace/merge-ran /tmp/merge-ran; cp %A %A'",
  "git config log.diffMerges remerge",
  // The reader may now write where the merge machinery writes: the worktree and the objects.
  "chmod -R a+rwX .git/objects",
  "rm -f /workspace/*-ran /tmp/*-ran",
].join("\n");

describe.each(runtimes)("containment under %s: a merge driver", (runtime) => {
  const h = harnessFor(runtime);
  const shared = sharedAttackers(h);

  it.each([
    "git -C r log --remerge-diff -1",
    "git -C r show --remerge-diff HEAD",
    "git -C r log --diff-merges=remerge -p -1",
    "git -C r log -m -p -1",
    "git -C r show -m HEAD",
  ])("`%s` does not run the repository's merge driver", async (command) => {
    const a = await plantedBy(shared, PLANT_MERGE_DRIVER);
    const job = await a.callAndWait("Bash", { command });
    expect(job.decision.behavior).toBe("allow");
    expect(await traces(a, job), `${command} (${job.status}) ran the merge driver`).toEqual([]);
    // The control: the merge was redone (the driver's place reached), it only did not run.
    expect(job.status, jobText(job)).toBe("succeeded");
    expect(jobText(job)).toContain("remerge CONFLICT");
  });
});

/**
 * attack25b: read-only git opens no transport. A repository's `protocol.<name>.allow=always` is
 * more specific than the reader's command-scope `protocol.allow=never` and won: `git remote show`
 * ran an `ext::` remote's command and a local remote's `uploadpack`, and a partial clone's lazy
 * fetch (any command that misses an object) ran its promisor remote's.
 */
const PLANT_REMOTES = [
  ...INIT_REPO,
  "git config protocol.ext.allow always",
  "git config protocol.file.allow always",
  "git config remote.origin.url 'ext::sh -c touch% /tmp/ext-ran'",
  "git config remote.up.url /workspace",
  "git config remote.up.uploadpack 'touch /tmp/uploadpack-ran; git-upload-pack'",
  "git init -q pc",
  "git -C pc config core.repositoryformatversion 1",
  "git -C pc config extensions.partialClone origin",
  "git -C pc config remote.origin.promisor true",
  "git -C pc config remote.origin.partialclonefilter blob:none",
  "git -C pc config protocol.ext.allow always",
  "git -C pc config remote.origin.url 'ext::sh -c touch% /tmp/lazy-ran'",
  "rm -f /workspace/*-ran /tmp/*-ran",
].join("\n");

describe.each(runtimes)("containment under %s: read-only git opens no transport", (runtime) => {
  const h = harnessFor(runtime);
  const shared = sharedAttackers(h);

  it.each([
    "git remote show origin",
    "git remote show up",
    "git -C pc cat-file -p 1234567890123456789012345678901234567890",
  ])("`%s` runs no remote's command", async (command) => {
    await runsNothingPlanted(await plantedBy(shared, PLANT_REMOTES), command);
  });

  // The controls: a remote is still shown without contacting it, and `git status` with submodule
  // summaries (`git submodule`, a script under /usr/lib/git-core, no builtin in 2.39) still works
  // with reader-bin/git as git's exec path.
  it("read-only git still shows remotes and summarises submodules", async () => {
    const a = await plantedBy(
      shared,
      [
        PLANT_SUBMODULE,
        "git config status.submoduleSummary true",
        "git -C sub -c user.name=a -c user.email=a@example.invalid commit -qam two",
        "git config remote.up.url /workspace/elsewhere",
      ].join("\n"),
    );
    const show = await a.callAndWait("Bash", { command: "git remote show -n up" });
    expect.soft(jobText(show)).toContain("/workspace/elsewhere");
    const status = await a.callAndWait("Bash", { command: "git status" });
    expect.soft(status.status, jobText(status)).toBe("succeeded");
    expect.soft(jobText(status)).toContain("> two");
    expect.soft(jobText(status)).not.toMatch(/not a git command/);
  });
});
