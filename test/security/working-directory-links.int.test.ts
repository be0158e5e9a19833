/**
 * A working directory that is a link out of the tenant's roots carries no auto-allowed write,
 * through the real API, queue and sandbox. The roots bound working directories lexically when they
 * are set; the file tools resolve them in the sandbox at run time, where a link made inside an
 * allowed root (`/tmp/h` → the home) would otherwise let accept_edits write the home's
 * configuration, which changes what a narrowly allowed command runs.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

/**
 * An accept_edits session of a new tenant, its sandbox, and `link` → the home in it, as the agent
 * could have made it (an approved `ln -s`).
 */
async function sessionWithHomeLink(tenant: string, link: string, workingDirectories?: string[]) {
  const t = await seedTenant(h.call, tenant);
  const created = await h.call("POST", "/v1/sessions", {
    key: t.agentKey,
    body: { mode: "accept_edits", ...(workingDirectories ? { workingDirectories } : {}) },
  });
  const sid = created.body.id as string;
  const sandbox = await h.service.deps.sandboxes.acquire({ sessionId: sid, tenantId: t.tenantId });
  const made = await sandbox.exec({
    argv: ["ln", "-s", "/home/agent", link],
    timeoutMs: 10_000,
    maxOutputBytes: 4096,
  });
  expect(made.exitCode, made.stderr).toBe(0);
  return { t, sid, sandbox };
}

it("a working directory linked into the home lets no accept_edits write through", async () => {
  const { t, sid, sandbox } = await sessionWithHomeLink("linked-workdir", "/tmp/h", ["/tmp"]);
  // Lexically inside the root /tmp, so the PATCH is accepted, and the decision allows the Write.
  const patched = await h.call("PATCH", `/v1/sessions/${sid}`, {
    key: t.agentKey,
    body: { workingDirectories: ["/tmp/h"] },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const write = await h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: t.agentKey,
    body: { tool: "Write", input: { file_path: "/tmp/h/.config/pip/pip.conf", content: "[global]\n" } },
  });
  const job = write.body.job;
  expect(job.decision).toMatchObject({ behavior: "allow", mode: "accept_edits" });
  expect(job.status).toBe("failed");
  expect(job.result.content[0].text).toBe(
    "Error: /tmp/h/.config/pip/pip.conf resolves to /home/agent/.config/pip/pip.conf, which is outside the working directories; refusing to write it without explicit permission.",
  );
  const left = await sandbox.exec({
    argv: ["ls", "-A", "/home/agent"],
    timeoutMs: 10_000,
    maxOutputBytes: 4096,
  });
  expect(left.stdout).not.toContain(".config");
});

it("a path through a missing directory and `..` resolves the link after it (no accept_edits write into the home)", async () => {
  // `/workspace/m/../h/x` with no `m`: file-ops' realPath alone falls back to joining names, and
  // path.join folds `m/..` away without resolving the link `h` → the home (it answers
  // `/workspace/h/x`). What holds is the executor's path.resolve of every file op's path before
  // both the realpath and the write: the guard and the write see the same `/workspace/h/x`.
  const { t, sid, sandbox } = await sessionWithHomeLink("missing-dotdot", "/workspace/h");
  const write = await h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: t.agentKey,
    body: {
      tool: "Write",
      input: { file_path: "/workspace/m/../h/.config/pip/pip.conf", content: "[global]\n" },
    },
  });
  const job = write.body.job;
  expect(job.decision).toMatchObject({ behavior: "allow", mode: "accept_edits" });
  expect(job.status, JSON.stringify(job.result)).toBe("failed");
  expect(job.result.content[0].text).toContain("resolves to /home/agent/.config/pip/pip.conf");
  const left = await sandbox.exec({
    argv: ["ls", "-A", "/home/agent"],
    timeoutMs: 10_000,
    maxOutputBytes: 4096,
  });
  expect(left.stdout).not.toContain(".config");
});
