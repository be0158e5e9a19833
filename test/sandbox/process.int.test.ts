/** Long-lived processes in the sandbox (the transport of stdio MCP servers): both ways, kill, exit. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox, SandboxProcess } from "../../src/sandbox/sandbox.js";
import { pollUntil } from "../support/wait-for-job.js";
import { createTestProvider, sh, type TestProvider } from "./harness.js";

describe("sandbox spawnProcess", () => {
  let t: TestProvider;
  let sb: Sandbox;

  beforeAll(async () => {
    t = await createTestProvider();
    sb = await t.provider.acquire({ sessionId: "ses_proc", tenantId: "ten_a" });
  });
  afterAll(async () => t?.cleanup());

  const spawn = async (argv: string[], env?: Record<string, string>) => {
    const out = { stdout: "", stderr: "" };
    const proc: SandboxProcess = await sb.spawnProcess!({
      argv,
      env,
      onOutput: (stream, data) => {
        out[stream] += data;
      },
    });
    return { proc, out };
  };
  const until = (check: () => boolean) =>
    pollUntil(check, (ok) => ok, { timeoutMs: 5000, intervalMs: 20, what: "the process output" });
  const sleepers = async () =>
    (await sb.exec(sh("ps -eo args= | grep -c '^sleep 100[01]' || true"))).stdout.trim();

  it("streams stdin to the process and its output back, line by line, as it runs", async () => {
    const { proc, out } = await spawn(
      ["bash", "-c", 'while read -r l; do echo "got $l"; echo "$NAME" >&2; done'],
      {
        NAME: "env-ok",
      },
    );
    proc.write("one\n");
    await until(() => out.stdout === "got one\n");
    proc.write("two\n");
    await until(() => out.stdout === "got one\ngot two\n");
    expect(out.stderr).toContain("env-ok");
    proc.end();
    expect(await proc.exited).toEqual({ exitCode: 0, signal: null, lost: false });
  });

  it("kill ends the whole process group", async () => {
    const { proc } = await spawn(["bash", "-c", "sleep 1000 & sleep 1001"]);
    // Both sleeps are up before the kill, so finding none afterwards means the kill reached them.
    await pollUntil(sleepers, (n) => n === "2", { timeoutMs: 10_000, what: "both sleeps" });
    proc.kill();
    const exit = await proc.exited;
    expect(exit.exitCode).toBeNull();
    expect(await sleepers()).toBe("0");
  });

  it("reports a program that cannot be spawned", async () => {
    const { proc, out } = await spawn(["no-such-program"]);
    expect((await proc.exited).exitCode).toBe(127);
    expect(out.stderr).toMatch(/ENOENT/);
  });

  it("a process that exits on its own reports its code, and exec keeps working beside it", async () => {
    const { proc: long } = await spawn(["cat"]);
    const { proc } = await spawn(["bash", "-c", "exit 7"]);
    expect((await proc.exited).exitCode).toBe(7);
    expect((await sb.exec(sh("echo still"))).stdout).toBe("still\n");
    long.kill();
    await long.exited;
  });

  it("stopping the sandbox ends a running process (lost) without hanging the stop", async () => {
    const other = await t.provider.acquire({ sessionId: "ses_proc2", tenantId: "ten_a" });
    const proc = await other.spawnProcess!({ argv: ["sleep", "1000"], onOutput: () => {} });
    // A stop that waited on the process would run into the test's timeout.
    await t.provider.stop("ses_proc2");
    expect(await proc.exited).toEqual({ exitCode: null, signal: null, lost: true });
  });
});
