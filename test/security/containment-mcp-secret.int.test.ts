/**
 * Attack 3, reading a stdio MCP server's secrets: the tenant admin gives the server a token in
 * its env; the agent, with Bash allowed, reads every /proc/<pid>/environ it can. The server must
 * run under an identity whose environment the agent cannot read.
 */
import { describe, expect, it } from "vitest";
import { harnessFor, jobText, newAttacker, nonce, runtimes } from "./support.js";

describe.each(runtimes)(
  "containment under %s: stdio MCP secrets stay out of the agent's reach",
  (runtime) => {
    const h = harnessFor(runtime);

    it("the agent cannot read the server's env from /proc, and the server is not the agent's uid", async () => {
      const secret = `s3cr3t-${nonce()}`;
      const a = await newAttacker(h(), { allow: ["Bash"] });
      const reg = await h().call("POST", `/v1/tenants/${a.tenantId}/mcp-servers`, {
        key: a.adminKey,
        body: {
          name: "memory",
          transport: "stdio",
          command: "node",
          args: ["/opt/mcp/memory.mjs"],
          env: { MEM_API_TOKEN: secret, MEMORY_FILE_PATH: "/tmp/memory.jsonl" },
        },
      });
      expect(reg.status, JSON.stringify(reg.body)).toBe(201);
      // Listing the session's tools starts the server in the sandbox; a call shows it serves.
      const tools = await h().call("GET", `/v1/sessions/${a.sid}/tools`, { key: a.agentKey });
      expect(tools.status, JSON.stringify(tools.body)).toBe(200);
      const names = tools.body.tools.map((t: { name: string }) => t.name);
      if (runtime === "runsc") {
        // This gVisor shows every uid's environment: a server with secrets is not started at all.
        expect(names).not.toContain("mcp__memory__read_graph");
      } else {
        expect(names).toContain("mcp__memory__read_graph");
        const graph = await a.callAndWait("mcp__memory__read_graph", {});
        expect(graph.status, jobText(graph)).toBe("succeeded");
      }

      const { out } = await a.bash(
        "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep s3cr3t; echo --; id -u; ps -eo uid=,pid=,args=",
      );
      const [leaked = "", after = ""] = out.split("--\n");
      const [agentUid, ...ps] = after.trim().split("\n");
      expect.soft(leaked, "environment lines holding the secret").toBe("");
      expect.soft(out, "the secret is readable from inside the sandbox").not.toContain(secret);
      const servers = ps
        .map((l) => l.trim().split(/\s+/))
        .filter((f) => f.slice(2).includes("/opt/mcp/memory.mjs"));
      for (const [uid, pid] of servers) {
        expect.soft(uid, `MCP server pid ${pid} runs as the agent's uid ${agentUid}`).not.toBe(agentUid);
      }
    });
  },
);
