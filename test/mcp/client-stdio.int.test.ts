/**
 * The client side over stdio, inside the session's sandbox: the third-party server-memory (npm),
 * bundled for the sandbox's Node 18 and put into the session's workspace, registered by the
 * tenant admin and called through the real API, policy, queue and worker under tenant rules.
 */
// suite: parallel — the host processes it lists are filtered by this server's path, and each must be in a container (another file's too)
import { execFileSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenant } from "../support/harness.js";
import { jobText, type McpHarness, startMcpHarness } from "./support.js";

const require = createRequire(import.meta.url);
const SERVER_PATH = "/workspace/.mcp/server-memory.mjs";

let t: McpHarness;
let tenant: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;

/** One self-contained ESM file: the sandbox has Node 18 and no node_modules. */
async function bundleServerMemory(): Promise<string> {
  const out = await build({
    entryPoints: [require.resolve("@modelcontextprotocol/server-memory/dist/index.js")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node18",
    write: false,
    logLevel: "silent",
    banner: {
      js: 'import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);',
    },
  });
  return out.outputFiles[0]!.text;
}

const sandbox = () => t.h.service.deps.sandboxes.acquire({ sessionId: sid, tenantId: tenant.tenantId });

async function run(tool: string, input: Record<string, unknown>) {
  const res = await t.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: tenant.agentKey,
    body: { tool, input },
  });
  expect([200, 202], JSON.stringify(res.body)).toContain(res.status);
  return res.body.job;
}

beforeAll(async () => {
  t = await startMcpHarness();
  tenant = await seedTenant(t.call);
  const s = await t.call("POST", "/v1/sessions", { key: tenant.agentKey, body: {} });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  sid = s.body.id;
  await (await sandbox()).writeFile(SERVER_PATH, await bundleServerMemory());
});

afterAll(async () => {
  if (sid) await t?.call("DELETE", `/v1/sessions/${sid}`, { key: tenant.agentKey });
  await t?.stop();
});

describe("a stdio MCP server inside the session's sandbox", () => {
  it("registers with env stored encrypted; the admin listing endpoint refers to sessions", async () => {
    const res = await t.call("POST", `/v1/tenants/${tenant.tenantId}/mcp-servers`, {
      key: tenant.adminKey,
      body: {
        name: "memory",
        transport: "stdio",
        command: "node",
        args: [SERVER_PATH],
        env: { MEMORY_FILE_PATH: "/workspace/memory.jsonl" },
        disableTools: ["delete_relations"],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ transport: "stdio", stateful: true, hasEnv: true, hasHeaders: false });
    expect(JSON.stringify(res.body)).not.toContain("memory.jsonl");
    const tools = await t.call("GET", `/v1/tenants/${tenant.tenantId}/mcp-servers/memory/tools`, {
      key: tenant.adminKey,
    });
    expect(tools.status).toBe(400);
  });

  it("lists its tools from inside the sandbox, with filters and read-only hints", async () => {
    const tools = await t.refreshTools(tenant.tenantId, sandbox);
    const names = tools.map((x) => x.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "mcp__memory__create_entities",
        "mcp__memory__read_graph",
        "mcp__memory__delete_entities",
      ]),
    );
    expect(names).not.toContain("mcp__memory__delete_relations");
    expect(tools.find((x) => x.name === "mcp__memory__read_graph")?.isReadOnly).toBe(true);
    expect(tools.find((x) => x.name === "mcp__memory__create_entities")?.isReadOnly).toBe(false);
  });

  it("calls its tools under tenant rules, and the server runs in the container, not on the host", async () => {
    const rules = {
      allow: ["mcp__memory__create_entities", "Bash"],
      deny: ["mcp__memory__delete_entities"],
      ask: [],
    };
    const put = await t.call("PUT", `/v1/tenants/${tenant.tenantId}/rules`, {
      key: tenant.adminKey,
      body: rules,
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const created = await run("mcp__memory__create_entities", {
      entities: [{ name: "toolshed", entityType: "service", observations: ["runs tool calls"] }],
    });
    expect(created.status, JSON.stringify(created)).toBe("succeeded");
    expect(created.decision).toMatchObject({ behavior: "allow", decidedBy: "rule" });

    const graph = await run("mcp__memory__read_graph", {});
    expect(graph.status, JSON.stringify(graph)).toBe("succeeded");
    expect(graph.decision.message).toBe("This is a read-only MCP tool. Allowing execution.");
    expect(jobText(graph)).toContain("runs tool calls");

    const denied = await run("mcp__memory__delete_entities", { entityNames: ["toolshed"] });
    expect(denied.status).toBe("denied");

    // The server wrote its file into the session's workspace, and its process is in the container.
    const inside = await run("Bash", { command: "cat /workspace/memory.jsonl; ps -eo args" });
    expect(jobText(inside)).toContain('"name":"toolshed"');
    expect(jobText(inside)).toContain(`node ${SERVER_PATH}`);
    // On the host the process is visible only as a member of another pid namespace (the container's).
    const ownNs = readlinkSync("/proc/self/ns/pid");
    const pids = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
      .split("\n")
      .filter((l) => l.includes(`node ${SERVER_PATH}`))
      .map((l) => l.trim().split(/\s+/)[0]!);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) expect(readlinkSync(`/proc/${pid}/ns/pid`)).not.toBe(ownNs);
  });

  it("a stdio server that dies gives no tools and a clear warning; the session keeps working", async () => {
    const res = await t.call("POST", `/v1/tenants/${tenant.tenantId}/mcp-servers`, {
      key: tenant.adminKey,
      body: {
        name: "broken",
        transport: "stdio",
        command: "node",
        args: ["-e", "console.error('boom'); process.exit(3)"],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const tools = await t.refreshTools(tenant.tenantId, sandbox);
    expect(tools.some((x) => x.name.startsWith("mcp__broken__"))).toBe(false);
    expect(tools.some((x) => x.name === "mcp__memory__read_graph")).toBe(true);
    const graph = await run("mcp__memory__read_graph", {});
    expect(graph.status).toBe("succeeded");
  });

  it("runs a platform-provided server from the image (/opt/mcp) over stdio, with its env", async () => {
    const res = await t.call("POST", `/v1/tenants/${tenant.tenantId}/mcp-servers`, {
      key: tenant.adminKey,
      body: {
        name: "everything",
        transport: "stdio",
        command: "node",
        args: ["/opt/mcp/everything.mjs", "stdio"],
        env: { TOOLSHED_PROBE: "inside-sandbox" },
        enableTools: ["echo", "get-env", "toggle-simulated-logging"],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const tools = await t.refreshTools(tenant.tenantId, sandbox);
    expect(tools.filter((x) => x.mcpName === "everything").map((x) => x.name)).toEqual([
      "mcp__everything__echo",
      "mcp__everything__get-env",
      "mcp__everything__toggle-simulated-logging",
    ]);
    const echo = await run("mcp__everything__echo", { message: "over stdio" });
    expect(echo.status, JSON.stringify(echo)).toBe("succeeded");
    expect(jobText(echo)).toBe("Echo: over stdio");
    const env = await run("mcp__everything__get-env", {});
    expect(jobText(env)).toContain("inside-sandbox");
    // It runs as the MCP identity, not the agent: the agent cannot read this environment.
    // Its home is its own (attack24a): not /tmp, where the agent could plant start-up files.
    expect(JSON.parse(jobText(env))).toMatchObject({
      USER: "mcp",
      HOME: expect.stringMatching(/^\/tmp\/\.mcp-home-/),
    });
    const asked = await run("mcp__everything__toggle-simulated-logging", {});
    expect(asked.status).toBe("awaiting_approval");
  });
});
