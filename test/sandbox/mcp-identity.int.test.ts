import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { createTestProvider, sh, type TestProvider } from "./harness.js";

/**
 * A stdio MCP server runs as its own identity so that the agent cannot read its environment (the
 * tenant's secrets). Nothing the agent can write may therefore be run by it: not start-up files in
 * its home (Python's user site, Node's ~/.node_modules, npm's ~/.npmrc).
 */
describe("the stdio MCP server's identity", () => {
  let t: TestProvider;
  let sb: Sandbox;

  beforeAll(async () => {
    t = await createTestProvider();
    sb = await t.provider.acquire({ sessionId: "ses_mcpid", tenantId: "ten_a" });
  });
  afterAll(async () => t?.cleanup());

  const runServer = async (argv: string[]) => {
    let out = "";
    const proc = await sb.spawnProcess!({
      argv,
      env: { MCP_SECRET: "s3cr3t" },
      onOutput: (_s, d) => {
        out += d;
      },
    });
    const exit = await proc.exited;
    return { out, exit };
  };

  it("has a home the agent cannot write", async () => {
    // The server itself may keep files there (caches); the agent may not add any, nor read them,
    // while the server runs (when it ends its home is removed; the next start makes a new name).
    let out = "";
    let wrote!: () => void;
    const ready = new Promise<void>((r) => {
      wrote = r;
    });
    const proc = await sb.spawnProcess!({
      argv: ["sh", "-c", 'echo "$HOME"; touch "$HOME/cache" && echo server-wrote; read x'],
      env: { MCP_SECRET: "s3cr3t" },
      onOutput: (_s, d) => {
        out += d;
        if (out.includes("server-wrote")) wrote();
      },
    });
    await ready;
    const [home, said] = out.trim().split("\n");
    expect(home).toMatch(/^\/tmp\/\.mcp-home-/);
    expect(said).toBe("server-wrote");
    const r = await sb.exec(
      sh(`mkdir -p ${home}/.local 2>&1 && echo wrote || echo refused; ls ${home} 2>&1 || true`),
    );
    expect(r.stdout).toMatch(/refused/);
    expect(r.stdout).not.toMatch(/^cache$/m);
    proc.end();
    await proc.exited;
    // Gone with the server: nothing it kept there outlives it.
    const after = await sb.exec(sh(`test -e ${home} && echo kept || echo removed`));
    expect(after.stdout.trim()).toBe("removed");
  });

  it("does not run a Python start-up file the agent planted", async () => {
    const plant = await sb.exec(
      sh(
        `d=$(python3 -c 'import site,sys; print(site.USER_SITE.replace(site.USER_BASE, "/tmp/.local"))'); ` +
          `mkdir -p "$d" && echo 'import os; open("/workspace/stolen","w").write(os.environ.get("MCP_SECRET",""))' > "$d/x.pth" && echo planted`,
      ),
    );
    expect(plant.stdout).toMatch(/planted/);
    await runServer(["python3", "-c", "print('server')"]);
    const r = await sb.exec(sh("cat /workspace/stolen 2>/dev/null || echo none"));
    expect(r.stdout.trim()).toBe("none");
  });
});
