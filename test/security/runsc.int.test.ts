/**
 * gVisor end to end: the real service with SANDBOX_RUNTIME=runsc (and small workspace quotas)
 * runs Bash, Write and Read through the API inside gVisor, and coreutils' `ls DIR` and `stat` work
 * there. Skipped when runsc is not registered.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";
import { runTool, jobText as text } from "../support/tool-calls.js";
import { RUNSC } from "./runtimes.js";

describe.runIf(RUNSC)("a session under gVisor (SANDBOX_RUNTIME=runsc)", () => {
  let h: Harness;
  let agentKey: string;
  let sid: string;

  const run = (tool: string, input: Record<string, unknown>) => runTool(h.call, agentKey, sid, tool, input);

  beforeAll(async () => {
    h = await startHarness({
      env: { SANDBOX_RUNTIME: "runsc", SANDBOX_DISK_MB: "20", SANDBOX_INODES: "2000" },
    });
    const t = await seedTenant(h.call);
    agentKey = t.agentKey;
    const rules = { allow: ["Read", "Write", "Bash"], deny: [], ask: [] };
    const put = await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const s = await h.call("POST", "/v1/sessions", { key: agentKey, body: {} });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    sid = s.body.id;
  });
  afterAll(async () => h?.stop());

  it("runs Bash inside gVisor's kernel, not the host's", async () => {
    const job = await run("Bash", { command: "echo hello; dmesg | head -n 1" });
    expect(job.status).toBe("succeeded");
    expect(text(job)).toMatch(/^hello\n.*Starting gVisor/);
  });

  it("round-trips a file through Write and Read", async () => {
    const w = await run("Write", { file_path: "/workspace/g.txt", content: "one\ntwo\n" });
    expect(text(w)).toBe("The file /workspace/g.txt has been written successfully (2 lines).");
    const r = await run("Read", { file_path: "/workspace/g.txt" });
    expect(text(r)).toBe("     1\tone\n     2\ttwo");
  });

  it("lists and stats paths with coreutils (gVisor's statx refuses its flag: a preloaded shim asks again)", async () => {
    // Read-only commands, so the reader identity's environment is covered too.
    const job = await run("Bash", {
      command: "ls -d / /workspace && stat -c %F /workspace/g.txt && ls /workspace",
    });
    expect(text(job), JSON.stringify(job)).toBe("/\n/workspace\nregular file\ng.txt\n");
    expect(job.status).toBe("succeeded");
    const mine = await run("Bash", { command: "mkdir -p /workspace/d && ls -la /workspace/d | wc -l" });
    expect(text(mine).trim()).toBe("3");
  });

  it("stops a workspace filler at the quota, and deleting the session deletes its volume", async () => {
    const fill = await run("Bash", { command: "head -c 40M /dev/zero > /workspace/big" });
    expect(fill.status).toBe("failed");
    expect(text(fill)).toMatch(/No space left on device/);
    const w = await run("Write", { file_path: "/workspace/more.txt", content: "x".repeat(100_000) });
    expect(text(w)).toMatch(/no space left for \/workspace\/more.txt/i);

    const image = join(h.config.DATA_DIR, "sb", "volumes", `${sid}.img`);
    expect(existsSync(image)).toBe(true);
    const del = await h.call("DELETE", `/v1/sessions/${sid}`, { key: agentKey });
    expect(del.status, JSON.stringify(del.body)).toBeLessThan(300);
    expect(existsSync(image)).toBe(false);
  });
});
