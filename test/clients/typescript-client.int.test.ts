/**
 * The TypeScript client (clients/typescript) against the real server, queue and sandbox: the
 * README walkthrough (tenant, rules, keys, session, a call, a call that asks, approval, result
 * through `job.stream()`), typed errors, and the package as `npm pack` builds it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JobEvent, Toolshed, ToolshedError } from "../../clients/typescript/src/index.js";
import { ADMIN_KEY, type Harness, startHarness } from "../support/harness.js";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

describe("@toolshed/client", () => {
  it("runs the README walkthrough: tenant, rules, keys, session, call, ask, approve, result", async () => {
    // The platform admin creates a tenant and its keys.
    const platform = new Toolshed({ baseUrl: h.url, apiKey: ADMIN_KEY });
    const tenant = await platform.tenants.create({ name: "acme" });
    const adminKey = await platform.tenants.createKey(tenant.id, { role: "tenant_admin" });
    const agentKey = await platform.tenants.createKey(tenant.id, { role: "agent" });

    // The tenant admin sets the rules.
    const admin = new Toolshed({ baseUrl: h.url, apiKey: adminKey.key });
    await admin.tenants.setRules(tenant.id, {
      allow: ["Bash(echo:*)", "Read", "Write"],
      ask: ["Bash(touch:*)"],
      deny: ["Bash(rm:*)"],
    });

    // The agent opens a session and calls tools.
    const agent = new Toolshed({ baseUrl: h.url, apiKey: agentKey.key });
    const session = await agent.sessions.create();
    try {
      const hello = await session.call("Bash", { command: "echo hello" }, { wait: 30 });
      expect(hello.status).toBe("succeeded");
      expect(hello.text).toBe("hello\n");

      const held = await session.call("Bash", { command: "touch /workspace/approved && echo touched" });
      expect(held.status).toBe("awaiting_approval");
      expect(held.data.decision.behavior).toBe("ask");

      // An agent may not approve (by default): a typed error names the role needed.
      const refused = await held.approve().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ToolshedError);
      expect(refused).toMatchObject({ status: 403, code: "FORBIDDEN" });

      // The tenant admin approves; the agent follows the job to its result.
      const approved = await (await admin.jobs.get(held.id)).approve();
      expect(approved.status).toBe("queued");
      const events: JobEvent[] = [];
      for await (const e of held.stream()) events.push(e);
      const last = events.at(-1)!;
      expect(last.event).toBe("result");
      expect(held.status).toBe("succeeded");
      expect(held.text).toBe("touched\n");
      expect(events.filter((e) => e.event === "result")).toHaveLength(1);

      const denied = await session.call("Bash", { command: "rm -r /workspace" }, { wait: 5 });
      expect(denied.status).toBe("denied");
    } finally {
      await session.delete();
    }
  });

  it("turns API errors into ToolshedError with code, status and field", async () => {
    const platform = new Toolshed({ baseUrl: h.url, apiKey: ADMIN_KEY });
    const tenant = await platform.tenants.create({ name: "errors" });
    const agentKey = await platform.tenants.createKey(tenant.id, { role: "agent" });
    const agent = new Toolshed({ baseUrl: h.url, apiKey: agentKey.key });
    const session = await agent.sessions.create();
    try {
      const unknown = await session.call("NoSuchTool", {}).catch((e: unknown) => e);
      expect(unknown).toBeInstanceOf(ToolshedError);
      expect(unknown).toMatchObject({ status: 400, code: "VALIDATION", field: "tool" });
      expect((unknown as ToolshedError).requestId).toMatch(/\S/);

      const missing = await agent.jobs.get("job_nope").catch((e: unknown) => e);
      expect(missing).toMatchObject({ status: 404, code: "NOT_FOUND" });

      const badKey = new Toolshed({ baseUrl: h.url, apiKey: "wrong" });
      await expect(badKey.sessions.create()).rejects.toMatchObject({ status: 401, code: "UNAUTHENTICATED" });
    } finally {
      await session.delete();
    }
  });

  it("covers an agent loop's daily verbs: the model's tools, decisions, files, external tools, lists", async () => {
    const platform = new Toolshed({ baseUrl: h.url, apiKey: ADMIN_KEY });
    const tenant = await platform.tenants.create({ name: "daily" });
    const admin = new Toolshed({
      baseUrl: h.url,
      apiKey: (await platform.tenants.createKey(tenant.id, { role: "tenant_admin" })).key,
    });
    const agent = new Toolshed({
      baseUrl: h.url,
      apiKey: (await platform.tenants.createKey(tenant.id, { role: "agent" })).key,
    });
    const lookup = {
      name: "lookup",
      description: "Looks a word up.",
      inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
    };
    expect(await admin.tenants.setTools(tenant.id, [lookup])).toMatchObject([{ name: "lookup" }]);
    expect((await admin.tenants.listKeys(tenant.id)).map((k) => k.role).sort()).toEqual([
      "agent",
      "tenant_admin",
    ]);
    await admin.tenants.setRules(tenant.id, {
      allow: ["lookup", "Read", "Write"],
      deny: [],
      ask: ["Bash(touch:*)"],
    });
    const session = await agent.sessions.create();
    try {
      // What the model is given: each tool's name, description and input schema, and the prompt.
      const { tools, systemPrompt } = await session.tools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["Bash", "Read", "lookup"]));
      expect(tools.find((t) => t.name === "lookup")?.inputSchema).toMatchObject({ required: ["word"] });
      expect(typeof systemPrompt).toBe("string");
      expect(await session.decide("Bash", { command: "touch x" })).toMatchObject({ behavior: "ask" });

      // Files in and out, as bytes, text and a tar of the workspace.
      expect(await session.files.put("/workspace/notes/a.txt", "hello files\n")).toMatchObject({ bytes: 12 });
      expect(await session.files.getText("/workspace/notes/a.txt")).toBe("hello files\n");
      const tar = await session.files.exportTar();
      const copy = await agent.sessions.create();
      try {
        expect((await copy.files.importTar(tar)).entries).toBeGreaterThan(0);
        expect(await copy.files.getText("/workspace/notes/a.txt")).toBe("hello files\n");
      } finally {
        await copy.delete();
      }

      // An external tool: the call waits for this code's result, which ends it.
      const held = await session.call("lookup", { word: "shed" }, { wait: 5, idempotencyKey: "lookup-1" });
      expect(held.status).toBe("awaiting_external");
      await held.submitResult({ content: [{ type: "text", text: "a small building" }] });
      expect(held).toMatchObject({ status: "succeeded", text: "a small building" });

      // Lists: the session's jobs (newest first), the sessions, the approvals an admin answers.
      const asking = await session.call("Bash", { command: "touch /workspace/t" });
      const jobs: string[] = [];
      for await (const j of agent.jobs.list({ sessionId: session.id, limit: 1 })) jobs.push(j.id);
      // Pages of one, followed to the end: the transfers above are jobs of the session too.
      expect(jobs.slice(0, 2)).toEqual([asking.id, held.id]);
      expect(jobs.length).toBeGreaterThan(3);
      const sessions: string[] = [];
      for await (const s of agent.sessions.list({ status: "active" })) sessions.push(s.id);
      expect(sessions).toContain(session.id);
      const waiting = [];
      for await (const a of admin.approvals.list({ sessionId: session.id })) waiting.push(a);
      expect(waiting.map((a) => a.job.id)).toEqual([asking.id]);
      await waiting[0]!.job.deny();
      expect((await agent.jobs.get(asking.id)).status).toBe("denied");
      const dry = await admin.tenants.dryRunRules(tenant.id, { allow: [], deny: ["lookup"], ask: [] });
      expect(dry.changes.map((c) => c.jobId)).toContain(held.id);
      const audit = await admin.tenants.audit(tenant.id, { jobId: held.id });
      expect(audit.entries.map((e) => e.kind)).toEqual(
        expect.arrayContaining(["decision", "external_result"]),
      );
    } finally {
      await session.delete();
    }
  });

  it("packs with its compiled code and types (npm pack)", () => {
    const out = mkdtempSync(join(tmpdir(), "client-pack-"));
    try {
      const dir = new URL("../../clients/typescript/", import.meta.url).pathname;
      const [packed] = JSON.parse(
        execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: dir, encoding: "utf8" }),
      ) as { name: string; filename: string; files: { path: string }[] }[];
      expect(packed!.name).toBe("@toolshed/client");
      const files = packed!.files.map((f) => f.path);
      expect(files).toEqual(
        expect.arrayContaining([
          "package.json",
          "dist/index.js",
          "dist/index.d.ts",
          "dist/generated/openapi.d.ts",
        ]),
      );
      expect(files.some((f) => f.startsWith("src/"))).toBe(false);
      // A host project installs the tarball and imports the package by name.
      const host = join(out, "host");
      mkdirSync(host);
      execFileSync("npm", ["init", "-y"], { cwd: host, encoding: "utf8" });
      execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", join(out, packed!.filename)], {
        cwd: host,
        encoding: "utf8",
      });
      const loaded = execFileSync(
        "node",
        [
          "--input-type=module",
          "-e",
          "const m = await import('@toolshed/client'); console.log(typeof m.Toolshed, typeof m.ToolshedError)",
        ],
        { cwd: host, encoding: "utf8" },
      );
      expect(loaded.trim()).toBe("function function");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
