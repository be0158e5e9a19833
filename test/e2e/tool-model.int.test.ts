/**
 * The tool model end to end, as an agent uses it, through the real HTTP server, Redis, BullMQ
 * worker and Docker sandbox: a tenant admin uploads a skill (SKILL.md + run.sh) and defines a
 * group; an agent lists its tools, activates the group with reset_tools, reads the skill with
 * `Skill`, runs its script with Bash from the read-only /skills mount, tracks its steps with the
 * task tools, and a call of an inactive group's tool answers the inactive-group text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";

let h: Harness;
let t: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;

interface JobLike {
  status: string;
  result?: { content: { text?: string }[] };
}
const text = (job: JobLike) => (job.result?.content ?? []).map((b) => b.text ?? "").join("");
const names = (tools: { name: string }[]) => tools.map((x) => x.name);

async function run(tool: string, input: Record<string, unknown>): Promise<JobLike> {
  const res = await h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, {
    key: t.agentKey,
    body: { tool, input },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.job;
}

const SKILL_MD = `---
name: greeter
description: Prints a greeting for a name.
---

# Greeter

Run \`bash /skills/greeter/run.sh <name>\` and report its output.`;

const INSTRUCTIONS = "Always greet by name.";

beforeAll(async () => {
  h = await startHarness();
  t = await seedTenant(h.call);
  const skill = await h.call("POST", `/v1/tenants/${t.tenantId}/skills`, {
    key: t.adminKey,
    body: { files: { "SKILL.md": SKILL_MD, "run.sh": 'echo "Hello, $1!"\n' } },
  });
  expect(skill.status, JSON.stringify(skill.body)).toBe(201);
  const groups = await h.call("PUT", `/v1/tenants/${t.tenantId}/tool-groups`, {
    key: t.adminKey,
    body: [
      {
        name: "greeting",
        description: "Greet people with the greeter skill.",
        instructions: INSTRUCTIONS,
        tools: ["Write"],
        skills: ["greeter"],
      },
    ],
  });
  expect(groups.status, JSON.stringify(groups.body)).toBe(200);
  const rules = await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, {
    key: t.adminKey,
    body: { allow: ["Bash", "Write"], deny: [], ask: [] },
  });
  expect(rules.status, JSON.stringify(rules.body)).toBe(200);
  const s = await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  sid = s.body.id;
});

afterAll(async () => {
  if (sid) await h?.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
  await h?.stop();
});

describe("an agent works with groups, skills and tasks", () => {
  it("runs the whole scenario with the reference's texts", async () => {
    const before = await h.call("GET", `/v1/sessions/${sid}/tools`, { key: t.agentKey });
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(names(before.body.tools)).toEqual([
      ...["reset_tools", "Bash", "Read", "Edit", "Glob", "Grep"],
      ...["TaskCreate", "TaskGet", "TaskList", "TaskUpdate"],
    ]);
    expect(before.body.systemPrompt).toBe("");

    const inactive = await run("Write", { file_path: "/workspace/x.txt", content: "x" });
    expect(inactive.status).toBe("failed");
    expect(text(inactive)).toBe(
      "ToolGroupInactiveError: The tool 'Write' in group 'greeting' is currently inactive. You should first activate the group by calling the 'reset_tools' tool.",
    );

    const created = await run("TaskCreate", { subject: "Greet Ada", description: "Use the greeter skill." });
    expect(created.status).toBe("succeeded");
    expect(text(created)).toBe("Task (id=1) created successfully: Greet Ada");
    const started = await run("TaskUpdate", { task_id: "1", status: "in_progress" });
    expect(text(started)).toBe("Update task (id=1) status.");

    const reset = await run("reset_tools", { greeting: true });
    expect(reset.status).toBe("succeeded");
    expect(text(reset)).toBe(
      "The currently activated tool group(s): greeting.\n<tool-instructions>\nThe tool instructions are a collection of suggestions, rules and notifications about how to use the tools in the activated groups.\n" +
        `<group name="greeting">${INSTRUCTIONS}</group>\n</tool-instructions>`,
    );

    const after = await h.call("GET", `/v1/sessions/${sid}/tools`, { key: t.agentKey });
    expect(names(after.body.tools)).toEqual([
      ...["Skill", "reset_tools", "Bash", "Read", "Edit", "Glob", "Grep"],
      ...["TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "Write"],
    ]);
    expect(after.body.systemPrompt).toContain(
      "<skill>\n<name>greeter</name>\n<description>Prints a greeting for a name.</description>\n<dir>/skills/greeter</dir>\n</skill>",
    );

    const viewed = await run("Skill", { skill: "greeter" });
    expect(viewed.status).toBe("succeeded");
    expect(text(viewed)).toBe("# Greeter\n\nRun `bash /skills/greeter/run.sh <name>` and report its output.");

    const greeted = await run("Bash", { command: "bash /skills/greeter/run.sh Ada" });
    expect(greeted.status, JSON.stringify(greeted)).toBe("succeeded");
    expect(text(greeted)).toBe("Hello, Ada!\n");

    // The mount is read-only: the agent cannot change the tenant's skill.
    const tamper = await run("Bash", { command: "echo x > /skills/greeter/run.sh" });
    expect(tamper.status).toBe("failed");
    expect(text(tamper)).toMatch(/Read-only file system/);

    const done = await run("TaskUpdate", { task_id: "1", status: "completed" });
    expect(text(done)).toBe(
      "Update task (id=1) status.\n\nTask completed. Call TaskList now to find your next available task or see if your work unblocked others.",
    );
    const listed = await run("TaskList", {});
    expect(text(listed)).toBe("1 [completed] Greet Ada");

    const off = await run("reset_tools", {});
    expect(text(off)).toBe("All tool groups are currently deactivated.");
    // With no skill visible, `Skill` is not a tool of the session: the API's unknown-tool 400.
    const again = await h.call("POST", `/v1/sessions/${sid}/calls`, {
      key: t.agentKey,
      body: { tool: "Skill", input: { skill: "greeter" } },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(400);
    expect(again.body.error.details[0].path).toBe("tool");
    const persisted = await h.call("GET", `/v1/sessions/${sid}/tools`, { key: t.agentKey });
    expect(names(persisted.body.tools)).not.toContain("Write");
  });

  it("a skill uploaded after the container started appears under /skills", async () => {
    const skill = await h.call("POST", `/v1/tenants/${t.tenantId}/skills`, {
      key: t.adminKey,
      body: { files: { "SKILL.md": "---\nname: later\ndescription: Added later.\n---\nBody." } },
    });
    expect(skill.status, JSON.stringify(skill.body)).toBe(201);
    const ls = await run("Bash", { command: "ls /skills" });
    expect(text(ls)).toBe("greeter\nlater\n");
  });
});
