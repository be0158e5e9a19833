/**
 * Where a stdio MCP server starts (attack25a): by default its own private home, since the agent
 * writes the workspace and `python -m x` / `npx x` load code from the working directory first. A
 * server that needs the workspace says so with `cwd`: the workspace or a directory below it.
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

const post = (extra: Record<string, unknown>) =>
  t.call("POST", `/v1/tenants/${a.tenantId}/mcp-servers`, {
    key: a.adminKey,
    body: { name: "srv", transport: "stdio", command: "python3", args: ["-m", "srv"], ...extra },
  });

describe("a stdio MCP server's cwd", () => {
  it("is its private home unless set (shown as null)", async () => {
    const res = await post({});
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.cwd).toBeNull();
  });

  it.each(["/workspace", "/workspace/app", "/workspace/a b/.venv"])("takes %s", async (cwd) => {
    const res = await post({ cwd });
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
    const res = await post({ cwd });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain("cwd");
  });
});
