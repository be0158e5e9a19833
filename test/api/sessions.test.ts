/** Sessions and their tools: happy paths, validation, roles, cross-tenant 404. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ADMIN_KEY, createApiTestApp, seedTenant } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let sandboxes: NullSandboxProvider;
beforeEach(async () => {
  sandboxes = new NullSandboxProvider();
  t = await createApiTestApp(sandboxes);
});
afterEach(() => t.close());

describe("sessions", () => {
  it("creates, reads, patches and deletes a session", async () => {
    const a = await seedTenant(t.call);
    const res = await t.call("POST", "/v1/sessions", {
      key: a.agentKey,
      body: { mode: "accept_edits", workingDirectories: ["/tmp/data"] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^ses_/),
      mode: "accept_edits",
      cwd: "/workspace",
      home: "/home/agent",
      workingDirectories: ["/tmp/data"],
      status: "active",
    });
    const sid = res.body.id;
    const got = await t.call("GET", `/v1/sessions/${sid}`, { key: a.adminKey });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const patched = await t.call("PATCH", `/v1/sessions/${sid}`, {
      key: a.agentKey,
      body: { mode: "explore" },
    });
    expect(patched.body.mode).toBe("explore");
    const del = await t.call("DELETE", `/v1/sessions/${sid}`, { key: a.agentKey });
    expect(del.status).toBe(204);
    expect(sandboxes.removed).toEqual([sid]);
    expect((await t.call("GET", `/v1/sessions/${sid}`, { key: a.agentKey })).status).toBe(404);
  });

  it("400 names the field", async () => {
    const a = await seedTenant(t.call);
    const mode = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: { mode: "yolo" } });
    expect(mode.status, JSON.stringify(mode.body)).toBe(400);
    expect(mode.body.error.details[0].path).toBe("mode");
    const dirs = await t.call("POST", "/v1/sessions", {
      key: a.agentKey,
      body: { workingDirectories: ["/tmp/ok", "relative"] },
    });
    expect(dirs.body.error.details[0].path).toBe("workingDirectories[1]");
  });

  it("the platform admin has no tenant to create a session in (403)", async () => {
    const res = await t.call("POST", "/v1/sessions", { key: ADMIN_KEY, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(403);
  });

  it("another tenant's session is 404, exactly like a missing one", async () => {
    const a = await seedTenant(t.call, "a");
    const b = await seedTenant(t.call, "b");
    const s = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
    for (const [method, path] of [
      ["GET", `/v1/sessions/${s.body.id}`],
      ["PATCH", `/v1/sessions/${s.body.id}`],
      ["DELETE", `/v1/sessions/${s.body.id}`],
      ["GET", `/v1/sessions/${s.body.id}/tools`],
    ] as const) {
      const res = await t.call(method, path, { key: b.agentKey, body: method === "PATCH" ? {} : undefined });
      expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    const missing = await t.call("GET", "/v1/sessions/ses_missing", { key: b.agentKey });
    expect(missing.body.error.message.replace("ses_missing", "X")).toBe(
      (await t.call("GET", `/v1/sessions/${s.body.id}`, { key: b.agentKey })).body.error.message.replace(
        s.body.id,
        "X",
      ),
    );
  });

  it("lists the built-in tools with their input schemas", async () => {
    const a = await seedTenant(t.call);
    const s = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: {} });
    const res = await t.call("GET", `/v1/sessions/${s.body.id}/tools`, { key: a.agentKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const names = res.body.tools.map((x: { name: string }) => x.name);
    expect(names).toEqual([
      ...["Bash", "Read", "Write", "Edit", "Glob", "Grep"],
      ...["TaskCreate", "TaskGet", "TaskList", "TaskUpdate"],
    ]);
    expect(res.body.tools[1].inputSchema.required).toContain("file_path");
    const admin = await t.call("GET", `/v1/sessions/${s.body.id}/tools`, { key: a.adminKey });
    expect(admin.status).toBe(403);
  });

  it("a session may offer a subset of the built-ins; others are a 400 on `tool`", async () => {
    const a = await seedTenant(t.call);
    const bad = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: { tools: ["Read", "Nope"] } });
    expect(bad.status, JSON.stringify(bad.body)).toBe(400);
    expect(bad.body.error.details[0].path).toBe("tools[1]");
    const s = await t.call("POST", "/v1/sessions", { key: a.agentKey, body: { tools: ["Read", "Grep"] } });
    expect(s.body.tools).toEqual(["Read", "Grep"]);
    const list = await t.call("GET", `/v1/sessions/${s.body.id}/tools`, { key: a.agentKey });
    expect(list.body.tools.map((x: { name: string }) => x.name)).toEqual(["Read", "Grep"]);
    const call = await t.call("POST", `/v1/sessions/${s.body.id}/calls`, {
      key: a.agentKey,
      body: { tool: "Bash", input: { command: "ls" } },
    });
    expect(call.status).toBe(400);
    expect(call.body.error.details[0].path).toBe("tool");
  });
});
