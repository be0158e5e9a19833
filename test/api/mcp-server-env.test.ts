/**
 * Where a stdio MCP server starts (attack25a): by default its own private home, since the agent
 * writes the workspace and `python -m x` / `npx x` load code from the working directory first. A
 * server that needs the workspace says so with `cwd`: the workspace or a directory below it.
 *
 * A stdio MCP server's variables (attack24a): the server runs as its own identity so the agent
 * cannot read its secrets, so no variable may make it run a file the agent can write (the loader's
 * `LD_*`, shell and Node start-up, `PATH`, `HOME`), and a name must be a name (`A=B` would set A).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let a: Awaited<ReturnType<typeof seedTenant>>;

beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider(), {}, { mcp: true });
  a = await seedTenant(t.call, "a");
});
afterEach(() => t.close());

const post = (env: Record<string, string>) =>
  t.call("POST", `/v1/tenants/${a.tenantId}/mcp-servers`, {
    key: a.adminKey,
    body: { name: "srv", transport: "stdio", command: "node", args: ["/opt/mcp/memory.mjs"], env },
  });

describe("a stdio MCP server's env", () => {
  it.each([
    ["LD_PRELOAD", "/workspace/x.so"],
    ["LD_AUDIT", "/workspace/a.so"],
    ["BASH_ENV", "/workspace/rc"],
    ["ENV", "/workspace/rc"],
    ["NODE_OPTIONS", "--require /workspace/x.js"],
    ["PATH", "/workspace/bin:/usr/bin"],
    ["HOME", "/tmp"],
    ["LD_PRELOAD=/workspace/x.so", ""],
    ["1BAD", "x"],
    // attack25a: variables that make a runtime load code from a directory they name.
    ["PYTHONPATH", "/workspace"],
    ["PYTHONSTARTUP", "/tmp/s.py"],
    ["PYTHONUSERBASE", "/tmp/u"],
    ["PYTHONPYCACHEPREFIX", "/tmp/c"],
    ["PYTHONWARNINGS", "ignore::x.Warn"],
    ["NODE_PATH", "/workspace/node_modules"],
    ["NODE_EXTRA_CA_CERTS", "/workspace/ca.pem"],
    ["npm_config_prefix", "/workspace"],
    ["NPM_CONFIG_USERCONFIG", "/tmp/npmrc"],
    ["Npm_Config_Cache", "lib"],
    ["PERL5LIB", "/dev/shm"],
    ["PERL5OPT", "-Mx"],
    ["RUBYLIB", "/home/agent"],
    ["RUBYOPT", "-rx"],
    ["JAVA_TOOL_OPTIONS", "-javaagent:/workspace/a.jar"],
    ["CLASSPATH", "."],
    ["XDG_CONFIG_HOME", "/workspace"],
    ["GIT_CONFIG_GLOBAL", "/workspace/gitconfig"],
    ["GIT_CONFIG_KEY_0", "core.hooksPath"],
    ["GIT_EXEC_PATH", "/workspace"],
  ])("refuses %s with a 400 naming it", async (name, value) => {
    const res = await post({ [name]: value });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION");
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(`env.${name}`);
    const list = await t.call("GET", `/v1/tenants/${a.tenantId}/mcp-servers`, { key: a.adminKey });
    expect(list.body.servers).toEqual([]);
  });

  it("keeps ordinary names, GIT_ ones included", async () => {
    const res = await post({
      MEMORY_FILE_PATH: "/workspace/m.json",
      GIT_AUTHOR_NAME: "bot",
      api_token: "s",
      PYTHONUNBUFFERED: "1",
      NODE_ENV: "production",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

const postStdio = (extra: Record<string, unknown>) =>
  t.call("POST", `/v1/tenants/${a.tenantId}/mcp-servers`, {
    key: a.adminKey,
    body: { name: "srv", transport: "stdio", command: "python3", args: ["-m", "srv"], ...extra },
  });

describe("a stdio MCP server's cwd", () => {
  it("is its private home unless set (shown as null)", async () => {
    const res = await postStdio({});
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.cwd).toBeNull();
  });

  it.each(["/workspace", "/workspace/app", "/workspace/a b/.venv"])("takes %s", async (cwd) => {
    const res = await postStdio({ cwd });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.cwd).toBe(cwd);
    const got = await t.call("GET", `/v1/tenants/${a.tenantId}/mcp-servers/srv`, { key: a.adminKey });
    expect(got.body.cwd).toBe(cwd);
  });

  it.each([
    "/tmp",
    "/home/agent",
    "/",
    "workspace",
    "app",
    "/workspacex",
    "/workspace/",
    "/workspace//a",
    "/workspace/../etc",
    "/workspace/a/..",
    "/workspace/./a",
  ])("refuses %s with a 400 naming cwd", async (cwd) => {
    const res = await postStdio({ cwd });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain("cwd");
  });
});
