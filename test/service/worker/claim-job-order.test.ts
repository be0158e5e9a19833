/**
 * Per-session ordering, decided by `claimJob` from the job rows: unsafe calls run alone and in
 * queue order, safe (read-only) calls may overlap each other, sessions are independent.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { finishJob } from "../../../src/service/calls/job-transitions.js";
import { claimJob } from "../../../src/service/worker/claim-job.js";
import { createApiTestApp, seedTenant } from "../../support/harness.js";
import { NullSandboxProvider } from "../../support/null-sandbox.js";

let t: Awaited<ReturnType<typeof createApiTestApp>>;
let agentKey: string;

beforeEach(async () => {
  t = await createApiTestApp(new NullSandboxProvider());
  const a = await seedTenant(t.call);
  agentKey = a.agentKey;
  await t.call("PUT", `/v1/tenants/${a.tenantId}/rules`, {
    key: a.adminKey,
    body: { allow: ["Bash", "Read"], deny: [], ask: [] },
  });
});
afterEach(() => t.close());

async function session(): Promise<string> {
  return (await t.call("POST", "/v1/sessions", { key: agentKey, body: {} })).body.id;
}
async function submit(sid: string, tool: "Bash" | "Read"): Promise<string> {
  const input = tool === "Bash" ? { command: "true" } : { file_path: "/workspace/a" };
  const res = await t.call("POST", `/v1/sessions/${sid}/calls`, { key: agentKey, body: { tool, input } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.job.id;
}
const kind = async (id: string) => (await claimJob(t.deps, id)).kind;
const done = (id: string) => finishJob(t.deps, id, "succeeded", { content: [], state: "success" });

it("unsafe calls of one session run alone and in submission order", async () => {
  const sid = await session();
  const [u1, u2, u3] = [await submit(sid, "Bash"), await submit(sid, "Bash"), await submit(sid, "Bash")];
  expect(await kind(u2!)).toBe("wait");
  expect(await kind(u1!)).toBe("run");
  expect(await kind(u2!)).toBe("wait");
  await done(u1!);
  expect(await kind(u3!)).toBe("wait");
  expect(await kind(u2!)).toBe("run");
  await done(u2!);
  expect(await kind(u3!)).toBe("run");
});

it("safe calls overlap each other but not an unsafe call", async () => {
  const sid = await session();
  const u1 = await submit(sid, "Bash");
  const s1 = await submit(sid, "Read");
  const s2 = await submit(sid, "Read");
  const u2 = await submit(sid, "Bash");
  expect(await kind(s1)).toBe("wait");
  expect(await kind(u1)).toBe("run");
  await done(u1);
  expect(await kind(s2)).toBe("run");
  expect(await kind(s1)).toBe("run");
  expect(await kind(u2)).toBe("wait");
  await done(s1);
  await done(s2);
  expect(await kind(u2)).toBe("run");
});

it("sessions do not wait for each other; a finished or cancelled job is skipped", async () => {
  const a = await session();
  const b = await session();
  const a1 = await submit(a, "Bash");
  const b1 = await submit(b, "Bash");
  expect(await kind(a1)).toBe("run");
  expect(await kind(b1)).toBe("run");
  await done(a1);
  expect(await kind(a1)).toBe("skip");
  const a2 = await submit(a, "Bash");
  await t.call("POST", `/v1/jobs/${a2}/cancel`, { key: agentKey });
  expect(await kind(a2)).toBe("skip");
});

it("a job whose worker died (row still running) is claimed again", async () => {
  const sid = await session();
  const u1 = await submit(sid, "Bash");
  const u2 = await submit(sid, "Bash");
  expect(await kind(u1)).toBe("run");
  expect(await kind(u2)).toBe("wait");
  expect(await kind(u1)).toBe("run");
});
