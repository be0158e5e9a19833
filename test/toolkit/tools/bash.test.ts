import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BashTool } from "../../../src/toolkit/tools/bash.js";
import { runTool } from "../run-tool.js";
import { makeContext, type TestContext } from "../test-context.js";

const bash = new BashTool();
let t: TestContext;
afterEach(() => t?.sandbox.dispose());

describe("Bash", () => {
  it("returns stdout then stderr, with the exit code in the metadata", async () => {
    t = makeContext();
    const r = await runTool(bash, { command: "echo out; echo err >&2" }, t.ctx);
    expect(r).toMatchObject({ text: "out\n\nerr\n", state: "success" });
    expect(r.metadata.exitCode).toBe(0);
    expect((await runTool(bash, { command: "true" }, t.ctx)).text).toBe("");
  });

  it("keeps the reference's failure text and reports the exit code", async () => {
    t = makeContext();
    const command = "echo partial; echo oops >&2; exit 3";
    const r = await runTool(bash, { command }, t.ctx);
    expect(r.state).toBe("error");
    expect(r.text).toBe(`Command failed: ${command}\n\nStdout:\npartial\n\nStderr:\noops\n`);
    expect(r.metadata).toMatchObject({ exitCode: 3, timedOut: false });
  });

  it("runs bash, not sh, in the session's working directory", async () => {
    t = makeContext();
    const r = await runTool(bash, { command: '[[ -n "$BASH_VERSION" ]] && pwd' }, t.ctx);
    expect(r.text).toBe(`${t.sandbox.workspace}\n`);
  });

  it("keeps the working directory between calls, but not environment variables", async () => {
    t = makeContext();
    mkdirSync(join(t.sandbox.workspace, "sub dir"));
    const moved = await runTool(bash, { command: 'cd "sub dir" && export FOO=1' }, t.ctx);
    const sub = join(t.sandbox.workspace, "sub dir");
    expect(t.cwdChanges).toEqual([sub]);
    expect(moved.metadata.cwd).toBe(sub);
    expect((await runTool(bash, { command: 'pwd; [ -z "$FOO" ] && echo unset' }, t.ctx)).text).toBe(
      `${sub}\nunset\n`,
    );
    expect(t.cwdChanges).toHaveLength(1);
    await runTool(bash, { command: "cd .. && false" }, t.ctx);
    expect(t.ctx.cwd).toBe(t.sandbox.workspace);
  });

  // attack22a: the cwd is where accept_edits lets writes through, and `cd` is read-only.
  it("keeps a cd only inside the workspace or a working directory; elsewhere the next call starts in the workspace", async () => {
    const outside = mkdtempSync(join(tmpdir(), "a22a-wd-"));
    t = makeContext({ workingDirectories: [outside] });
    for (const dir of ["/", "/tmp", t.sandbox.home]) {
      await runTool(bash, { command: `cd ${dir}` }, t.ctx);
      expect(t.ctx.cwd, dir).toBe(t.sandbox.workspace);
    }
    await runTool(bash, { command: `cd ${outside}` }, t.ctx);
    expect(t.ctx.cwd).toBe(outside);
    const moved = await runTool(bash, { command: "cd /" }, t.ctx);
    expect(t.ctx.cwd).toBe(t.sandbox.workspace);
    expect(moved.metadata.cwd).toBe(t.sandbox.workspace);
    rmSync(outside, { recursive: true, force: true });
  });

  // attack22c: a cwd that no longer exists (removed by the call standing in it, or a workspace
  // lost with its host) made every later Bash call fail before it started: nothing ran to move it.
  it("a working directory that is gone leaves the next call in the workspace, not failing for ever", async () => {
    t = makeContext();
    const sub = join(t.sandbox.workspace, "sub");
    mkdirSync(sub);
    await runTool(bash, { command: "cd sub" }, t.ctx);
    expect(t.ctx.cwd).toBe(sub);
    // Removed by the call standing in it: `pwd -P` fails, so no directory is reported.
    const removed = await runTool(bash, { command: 'rm -rf "$PWD"' }, t.ctx);
    expect(removed.state).toBe("success");
    expect(t.ctx.cwd).toBe(t.sandbox.workspace);
    expect(removed.metadata.cwd).toBe(t.sandbox.workspace);
    expect((await runTool(bash, { command: "pwd" }, t.ctx)).text).toBe(`${t.sandbox.workspace}\n`);
    // Gone between calls (the command cannot start there): the call fails, the next one runs.
    mkdirSync(sub);
    await runTool(bash, { command: "cd sub" }, t.ctx);
    rmSync(sub, { recursive: true });
    const failed = await runTool(bash, { command: "pwd" }, t.ctx);
    expect(failed.state).toBe("error");
    expect(t.ctx.cwd).toBe(t.sandbox.workspace);
    expect((await runTool(bash, { command: "pwd" }, t.ctx)).text).toBe(`${t.sandbox.workspace}\n`);
    // A directory that is still there is kept when nothing is reported (`exec` replaced the shell).
    mkdirSync(sub);
    await runTool(bash, { command: "cd sub" }, t.ctx);
    await runTool(bash, { command: "exec true" }, t.ctx);
    expect(t.ctx.cwd).toBe(sub);
  });

  // attack22c: the directory comes back on descriptor 9, which the command itself can write (its
  // own EXIT trap): a NUL there made every later call fail (the sandbox refuses such a cwd, and
  // Postgres such a text); a non-normal spelling was stored as written.
  it("a directory reported with control characters is not kept; one reported non-normal is kept normalised", async () => {
    t = makeContext();
    mkdirSync(join(t.sandbox.workspace, "sub"));
    for (const forged of ["%s/a\\0b", "%s/a\\tb", "%s/a\\033[2J"]) {
      await runTool(bash, { command: `trap 'printf "${forged}" "$PWD" >&9' EXIT` }, t.ctx);
      expect(t.ctx.cwd, forged).toBe(t.sandbox.workspace);
    }
    await runTool(bash, { command: `trap 'printf "%s//sub/./" "$PWD" >&9' EXIT` }, t.ctx);
    expect(t.ctx.cwd).toBe(join(t.sandbox.workspace, "sub"));
    expect((await runTool(bash, { command: "pwd" }, t.ctx)).text).toBe(
      `${join(t.sandbox.workspace, "sub")}\n`,
    );
  });

  it("on timeout kills the process group and returns the partial output with a note", async () => {
    t = makeContext();
    const command = "echo partial; (sleep 30; echo never) & sleep 30";
    const r = await runTool(bash, { command, timeout: 500 }, t.ctx);
    expect(r.state).toBe("error");
    expect(r.text).toBe(
      `Command timed out after 500ms: ${command}\nThe command and its child processes were killed. Partial output:\n\nStdout:\npartial\n`,
    );
    expect(r.metadata).toMatchObject({ exitCode: null, timedOut: true });
  });

  it("truncates output past 30,000 characters", async () => {
    t = makeContext();
    const r = await runTool(bash, { command: "head -c 40000 /dev/zero | tr '\\0' a" }, t.ctx);
    expect(r.text).toBe(`${"a".repeat(30_000)}\n... (output truncated)`);
    expect(r.metadata.truncated).toBe(true);
  });

  it("streams output pieces through ctx.onChunk while running", async () => {
    t = makeContext();
    const r = await runTool(bash, { command: "echo tick; sleep 0.2; echo tock" }, t.ctx);
    const live = t.chunks.filter((c) => c.metadata.live === true);
    expect(live.length).toBeGreaterThan(0);
    expect(live.map((c) => (c.content[0]?.type === "text" ? c.content[0].text : "")).join("")).toBe(
      "tick\ntock\n",
    );
    expect(live.every((c) => c.state === "running" && c.content[0]?.id === live[0]?.content[0]?.id)).toBe(
      true,
    );
    expect(r.text).toBe("tick\ntock\n");
  });

  it("is interrupted by ctx.signal", async () => {
    t = makeContext();
    setTimeout(() => t.abort.abort(), 200);
    const r = await runTool(bash, { command: "sleep 30" }, t.ctx);
    expect(r).toMatchObject({
      state: "interrupted",
      text: "<system-reminder>The tool call has been interrupted by the user.</system-reminder>",
    });
  });

  it("rejects a timeout above 600000 ms", async () => {
    t = makeContext();
    const r = await runTool(bash, { command: "true", timeout: 600_001 }, t.ctx);
    expect(r.text).toBe(
      "Input validation failed for tool 'Bash': 600001 is greater than the maximum of 600000",
    );
  });

  it("delegates its permission face to the Bash policy", () => {
    const permCtx = {
      mode: "default" as const,
      cwd: "/workspace",
      home: "/home/agent",
      workingDirectories: [],
      rules: { allow: [], deny: [], ask: [] },
    };
    expect(bash.checkReadOnly({ command: "ls -la" }, permCtx)).toBe(true);
    expect(bash.checkReadOnly({ command: "rm -rf x" }, permCtx)).toBe(false);
    expect(typeof bash.matchAllowRules).toBe("function");
    expect(bash.generateSuggestions({ command: 'git commit -m "x"' }, permCtx)[0]).toMatchObject({
      toolName: "Bash",
      ruleContent: "git commit:*",
    });
  });
});
