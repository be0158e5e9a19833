/**
 * Containment: no tool input becomes a program option or code, through the real API, worker and
 * sandbox. The tenant allows Read, Write, Grep and Glob and denies Bash; the agent plants a shell
 * script (and python modules) and tries to have Grep or Glob run it. Nothing runs: no file is
 * written, and the marker the code would compute (`ran-42`, absent from the files) never shows.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";

let h: Harness;
let agentKey: string;
let sid: string;

const PWNED = "/workspace/pwned.txt";
/** What the planted code prints when it runs; the files themselves only hold `$((6*7))` / `6*7`. */
const MARKER = "ran-42";

async function submit(tool: string, input: Record<string, unknown>) {
  return h.call("POST", `/v1/sessions/${sid}/calls?wait=60`, { key: agentKey, body: { tool, input } });
}

async function run(tool: string, input: Record<string, unknown>) {
  const res = await submit(tool, input);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const job = res.body.job as { status: string; result?: { content: { text?: string }[] } };
  expect(JSON.stringify(job)).not.toContain(MARKER);
  return job;
}

async function pwnedExists(): Promise<boolean> {
  const job = await run("Read", { file_path: PWNED });
  const text = (job.result?.content ?? []).map((b) => b.text ?? "").join("");
  return !text.startsWith("Error: File does not exist");
}

beforeAll(async () => {
  h = await startHarness();
  const t = await seedTenant(h.call);
  agentKey = t.agentKey;
  const rules = { allow: ["Read", "Write", "Grep", "Glob"], deny: ["Bash"], ask: [] };
  const put = await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const s = await h.call("POST", "/v1/sessions", { key: agentKey, body: {} });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  sid = s.body.id;
  const payload = `id > ${PWNED}; echo ${MARKER.slice(0, 4)}$((6*7))\n`;
  expect((await run("Write", { file_path: "/workspace/a.txt", content: payload })).status).toBe("succeeded");
  const plant = `import os\nos.system("id > ${PWNED}")\nraise SystemExit("${MARKER.slice(0, 4)}" + str(6*7))\n`;
  for (const m of ["json", "re"]) {
    expect((await run("Write", { file_path: `/workspace/${m}.py`, content: plant })).status).toBe(
      "succeeded",
    );
  }
});

afterAll(async () => {
  if (sid) await h?.call("DELETE", `/v1/sessions/${sid}`, { key: agentKey });
  await h?.stop();
});

describe("argument injection through the search tools", () => {
  it("denies Bash itself (the rules the attack must get around)", async () => {
    expect((await run("Bash", { command: `id > ${PWNED}` })).status).toBe("denied");
  });

  it("answers Grep path --pre=bash with a 400 naming the path, and runs nothing", async () => {
    for (const path of ["--pre=bash", "-", "--pre=sh"]) {
      const res = await submit("Grep", { pattern: "x", path });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION");
      expect(res.body.error.message).toContain(`'${path}' starts with '-' and would be read as an option`);
      expect(res.body.error.message).toContain("(at path)");
    }
    expect(await pwnedExists()).toBe(false);
  });

  it.each([
    ["pattern", { pattern: "--pre=bash" }],
    ["pattern searching for what bash would print", { pattern: "--pre=bash", output_mode: "content" }],
    ["pattern with a newline", { pattern: "x\n--pre=bash" }],
    ["pattern with =", { pattern: "-e=--pre=bash", output_mode: "content" }],
    ["glob", { pattern: "ran", glob: "--pre=sh", output_mode: "content" }],
    ["glob with a newline", { pattern: "ran", glob: "*.txt\n--pre=bash", output_mode: "content" }],
    ["type", { pattern: "ran", type: "--pre=sh" }],
    ["path written ./--pre=bash", { pattern: "x", path: "./--pre=bash" }],
  ])("Grep keeps an option-shaped %s as data", async (_what, input) => {
    const job = await run("Grep", input);
    expect(["succeeded", "failed"]).toContain(job.status);
    expect(await pwnedExists()).toBe(false);
  });

  it("Glob neither parses an option-shaped pattern nor imports the planted json.py / re.py", async () => {
    for (const input of [{ pattern: "--pre=sh" }, { pattern: "*.py", path: "./" }, { pattern: "-c\n=x" }]) {
      const job = await run("Glob", input);
      expect(job.status, JSON.stringify(job)).toBe("succeeded");
    }
    expect(await pwnedExists()).toBe(false);
  });
});
