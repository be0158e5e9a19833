/**
 * Real API, Redis and worker, with a sandbox provider that refuses every container: the calls
 * that need no sandbox (`reset_tools`, `Skill`, the task tools) still run, because the worker
 * acquires the sandbox only on first use. A tool that throws is answered with a generic text.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { toolRegistry } from "../../src/service/ports.js";
import { createBuiltinTools } from "../../src/toolkit/builtins.js";
import { FunctionTool } from "../../src/toolkit/function-tool.js";
import { createTaskTools } from "../../src/toolkit/tasks/task-tools.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";

const boom = new FunctionTool({
  name: "boom",
  description: "Always throws.",
  schema: z.object({}),
  fn: () => {
    throw new Error("secret detail /etc/host-path");
  },
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: { SANDBOX_RETRY_ATTEMPTS: "1" },
    start: {
      sandboxes: new NullSandboxProvider(),
      tools: toolRegistry([...createBuiltinTools(), ...createTaskTools(), boom]),
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

it("reset_tools, Skill and task tools run without a container; a throwing tool is answered generically", async () => {
  const t = await seedTenant(h.call);
  const md = "---\nname: notes\ndescription: Note taking.\n---\nTake notes.";
  await h.call("POST", `/v1/tenants/${t.tenantId}/skills`, {
    key: t.adminKey,
    body: { files: { "SKILL.md": md } },
  });
  const group = { name: "notes", description: "Notes.", tools: [], skills: ["notes"] };
  const put = await h.call("PUT", `/v1/tenants/${t.tenantId}/tool-groups`, {
    key: t.adminKey,
    body: [group],
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, {
    key: t.adminKey,
    body: { allow: ["boom", "Bash"], deny: [], ask: [] },
  });
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: { toolGroups: ["notes"] } }))
    .body.id;
  const run = async (tool: string, input: Record<string, unknown>) => {
    const res = await h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
      key: t.agentKey,
      body: { tool, input },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.job;
  };

  const skill = await run("Skill", { skill: "notes" });
  expect(skill.status, JSON.stringify(skill)).toBe("succeeded");
  expect(skill.result.content[0].text).toBe("Take notes.");
  const task = await run("TaskCreate", { subject: "s", description: "d" });
  expect(task.result.content[0].text).toBe("Task (id=1) created successfully: s");
  const reset = await run("reset_tools", { notes: false });
  expect(reset.result.content[0].text).toBe("All tool groups are currently deactivated.");

  const thrown = await run("boom", {});
  expect(thrown.status).toBe("failed");
  expect(thrown.result.content[0].text).toBe(`Error: the tool failed unexpectedly (job ${thrown.id}).`);

  const bash = await run("Bash", { command: "true" });
  expect(bash.status).toBe("failed");
  expect(bash.result.content[0].text).toBe(
    "Error: the session's sandbox is unavailable (no sandboxes in API-shape tests): the call did not run. Retry it once the service reports ready (GET /readyz).",
  );
});
