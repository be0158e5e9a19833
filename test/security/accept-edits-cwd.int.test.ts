/**
 * attack22a: accept_edits lets Write and Edit through inside the working directories, and the
 * session's cwd is one of them. A `cd` is read-only (any reader may run it, no rule, no approval)
 * and the cwd follows it between calls, so `cd /` used to make the whole filesystem "inside the
 * working directory": a Write to the home (which runs as the agent, who owns the home) was then
 * auto-allowed. The shell now stays only inside the workspace or a working directory.
 */
import { describe, expect, it } from "vitest";
import { harnessFor, jobText, newAttacker } from "./support.js";

describe("accept_edits and a cd out of the workspace", () => {
  const h = harnessFor("runc");

  it.each(["cd /", "cd /home", "cd /tmp", "cd /workspace/out-link"])(
    "after `%s` (read-only), a Write to the home is not auto-allowed",
    async (cd) => {
      const a = await newAttacker(h(), {});
      const mode = await h().call("PATCH", `/v1/sessions/${a.sid}`, {
        key: a.agentKey,
        body: { mode: "accept_edits" },
      });
      expect(mode.status, JSON.stringify(mode.body)).toBe(200);
      // A link inside the workspace to / (made with an auto-allowed Write target's sibling is not
      // possible: made here as the harness's own set-up, as the agent).
      if (cd.includes("out-link")) {
        const sb = await h().service.deps.sandboxes.acquire({ sessionId: a.sid, tenantId: a.tenantId });
        await sb.exec({
          argv: ["ln", "-s", "/", "/workspace/out-link"],
          timeoutMs: 30_000,
          maxOutputBytes: 4096,
        });
      }
      const moved = await a.callAndWait("Bash", { command: cd });
      expect(moved.decision.behavior, jobText(moved)).toBe("allow");
      expect(moved.status, jobText(moved)).toBe("succeeded");

      const file_path = "/home/agent/.config/git/config";
      const w = await a.submit(
        "Write",
        { file_path, content: "[core]\n\tfsmonitor = touch /workspace/pwned\n" },
        30,
      );
      expect.soft(w.job?.decision.behavior, JSON.stringify(w.body)).not.toBe("allow");
      expect.soft(w.job?.status).not.toBe("succeeded");
      // Inside the workspace, Write is still auto-allowed (the control).
      const inside = await a.callAndWait("Write", { file_path: "/workspace/ok.txt", content: "ok\n" });
      expect(inside.decision.behavior).toBe("allow");
      expect(inside.status, jobText(inside)).toBe("succeeded");
    },
  );
});
