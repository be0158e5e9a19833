/**
 * Read-only and accept_edits hold by construction, not by analysis. The service runs with a Bash
 * tool whose analysis is forced (the test-only path: a permission face that calls every command
 * read-only, or every command an accept_edits file command), so a command the real analyser would
 * never pass reaches the sandbox. The kernel must still refuse what the decision did not grant.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PermissionSubject } from "../../src/permission/types.js";
import { toolRegistry } from "../../src/service/ports.js";
import { createBuiltinTools } from "../../src/toolkit/builtins.js";
import { createTaskTools } from "../../src/toolkit/tasks/task-tools.js";
import { BashTool } from "../../src/toolkit/tools/bash.js";
import { identitiesOf } from "../sandbox/harness.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";

/** A Bash permission face that allows everything for the given reason. */
function forced(as: "read-only" | "accept-edits"): PermissionSubject {
  return {
    name: "Bash",
    checkPermissions: () => ({
      behavior: "allow",
      message: as === "read-only" ? "forced read-only" : "forced accept edits",
      reason: null,
      bypassImmune: false,
    }),
    checkReadOnly: () => as === "read-only",
    matchRule: () => false,
    generateSuggestions: () => [],
  };
}

async function harnessWith(as: "read-only" | "accept-edits"): Promise<Harness> {
  const tools = [
    ...createBuiltinTools().filter((t) => t.name !== "Bash"),
    new BashTool({ permission: forced(as) }),
  ];
  return startHarness({ start: { tools: toolRegistry([...tools, ...createTaskTools()]) } });
}

describe.each(["read-only", "accept-edits"] as const)("a command forced through as %s", (as) => {
  let h: Harness;
  let bash: (command: string) => Promise<{ status: string; text: string; decision: Record<string, unknown> }>;
  let sid: string;

  beforeAll(async () => {
    h = await harnessWith(as);
    const t = await seedTenant(h.call, `forced-${as}`);
    const mode = as === "accept-edits" ? "accept_edits" : "default";
    sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: { mode } })).body.id;
    // Set-up as the agent itself: files with the agent's usual modes, a git repository, a home file.
    await h.service.deps.sandboxes.acquire({ sessionId: sid, tenantId: t.tenantId }).then((sb) =>
      sb.exec({
        argv: [
          "bash",
          "-c",
          "git init -q /workspace && echo v1 > /workspace/kept.txt && echo safe > ~/.bashrc",
        ],
        timeoutMs: 30_000,
        maxOutputBytes: 65536,
      }),
    );
    bash = async (command) => {
      const r = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
        key: t.agentKey,
        body: { tool: "Bash", input: { command } },
      });
      const job = r.body.job;
      return { status: job.status, text: job.result?.content?.[0]?.text ?? "", decision: job.decision };
    };
  });
  afterAll(async () => h?.stop());

  it("was decided as forced", async () => {
    const r = await bash("true");
    expect(r.status).toBe("succeeded");
    if (as === "read-only") expect(r.decision.readOnly).toBe(true);
    else expect(r.decision.readOnly).toBeUndefined();
  });

  it("cannot write the home or git's user configuration", async () => {
    const r = await bash(
      "echo evil >> ~/.bashrc; echo rc=$?; echo evil >> /home/agent/.bashrc; echo rc=$?; " +
        "git config --global user.name evil; echo rc=$?",
    );
    expect(r.text).not.toMatch(/rc=0/);
    expect((await bash("id -u >/dev/null; true")).status).toBe("succeeded");
  });

  if (as === "read-only") {
    it("cannot write the workspace or the repository's configuration, but reads it", async () => {
      const r = await bash(
        "cat /workspace/kept.txt; touch /workspace/new 2>&1; echo rc=$?; echo x >> /workspace/kept.txt; echo rc=$?; " +
          "git -C /workspace config core.fsmonitor 'touch /workspace/pwned'; echo rc=$?; mkdir /workspace/d; echo rc=$?",
      );
      expect(r.text).toMatch(/^v1$/m);
      expect(r.text).toMatch(/Permission denied/);
      expect(r.text).not.toMatch(/rc=0/);
    });

    it("gains nothing through the image's other bash binaries (bash-static, bash.dynamic, rbash)", async () => {
      // /bin/bash is bash-static; the dynamic build stays as bash.dynamic (docs/sandbox.md). Run
      // by name, each is the reader's own process, no more able to write than bash itself.
      const tries = ["/bin/bash-static", "/bin/bash.dynamic", "/bin/rbash"].map(
        (b) =>
          `${b} -c 'touch /workspace/via' 2>/dev/null; echo rc=$?; ${b} -c 'echo x >> /workspace/kept.txt' 2>/dev/null; echo rc=$?; ` +
          `${b} -c 'echo evil >> /home/agent/.bashrc' 2>/dev/null; echo rc=$?`,
      );
      const r = await bash(
        `${tries.join("; ")}; stat -L -c '%a %u' /bin/bash /bin/bash-static /bin/bash.dynamic`,
      );
      expect(r.text.match(/rc=\d+/g)).toHaveLength(9);
      expect(r.text).not.toMatch(/rc=0/);
      // Root's, and neither set-id nor writable by anyone else.
      expect(r.text.trim().split("\n").slice(-3)).toEqual(["755 0", "755 0", "755 0"]);
      expect((await bash("cat /workspace/kept.txt")).text).toBe("v1\n");
    });

    it("leaves nothing running after the call", async () => {
      await bash("setsid sleep 901 >/dev/null 2>&1 < /dev/null & nohup sleep 902 >/dev/null 2>&1 & echo bg");
      const ps = await bash("ps -eo args | grep -c '^sleep 90[12]' || true");
      expect(ps.text.trim().split("\n").pop()).toBe("0");
    });

    // attack22a: System V IPC objects are not processes: a shared memory segment (memory, pages
    // touched) or message queues a reader made would outlive its call, beyond /tmp's and
    // /dev/shm's sizes. Its segments go with it (kernel.shm_rmid_forced), and few queues exist.
    it("leaves no shared memory segment behind, and can make few message queues", async () => {
      const make = [
        "import ctypes",
        "libc = ctypes.CDLL(None, use_errno=True)",
        "libc.shmat.restype = ctypes.c_void_p",
        "seg = libc.shmget(0, 8 << 20, 0o1600)",
        "addr = libc.shmat(seg, None, 0)",
        "ctypes.memset(addr, 1, 8 << 20)",
        "queues = sum(libc.msgget(0, 0o1600) >= 0 for _ in range(64))",
        'print("seg", seg, "queues", queues)',
      ].join("; ");
      const made = await bash(`python3 -c '${make}'`);
      expect(made.text).toMatch(/^seg \d+ queues \d+$/m);
      expect(Number(/queues (\d+)/.exec(made.text)?.[1])).toBeLessThanOrEqual(16);
      const left = await bash("tail -n +2 /proc/sysvipc/shm | wc -l");
      expect(left.text.trim()).toBe("0");
    });
  } else {
    it("writes inside the working directory, and the agent owns what it made", async () => {
      const r = await bash("mkdir -p /workspace/made && echo v2 > /workspace/made/f && echo ok");
      expect(r.text).toMatch(/ok/);
      const owner = await bash("stat -c %u /workspace/made /workspace/made/f; id -u");
      // Made by the editor uid, handed back to the agent when the call ended.
      const ids = await identitiesOf(sid);
      expect(owner.text.trim().split("\n")).toEqual([
        String(ids.agent),
        String(ids.agent),
        String(ids.editor),
      ]);
    });

    it("cannot write outside the working directories", async () => {
      const r = await bash(
        "cp /workspace/kept.txt /home/agent/.profile 2>&1; echo rc=$?; touch /etc/x 2>&1; echo rc=$?",
      );
      expect(r.text).not.toMatch(/rc=0/);
    });
  }
});
