/**
 * Exactly once when a worker dies after its command ended but before the result row (attack22b).
 * The worker (a child process) is frozen (SIGSTOP) while its call's command runs, so the command
 * ends in the container while nothing on the host can store its end; then it is killed. The next
 * worker takes the call over in the same executor, which answers what it had answered: the call
 * ends `succeeded` with the real output, and its command ran once.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { apiWithChildWorkers } from "../support/child-workers.js";
import { seedBashTenant } from "../support/harness.js";
import { pollUntil, waitForJob } from "../support/wait-for-job.js";

const fx = apiWithChildWorkers();

it("a worker frozen under its call, the command ending meanwhile, then killed: the end is re-attached, the command ran once", async () => {
  const t = await seedBashTenant(fx.h.call, "frozen");
  const sid = (await fx.h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string;
  const child = await fx.spawn("worker");
  const sub = await fx.h.call("POST", `/v1/sessions/${sid}/calls`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: "echo x >> /workspace/counter; sleep 1; echo done" } },
  });
  const jid = sub.body.job.id as string;
  const counter = join(fx.h.config.DATA_DIR, "sb", "workspaces", sid, "counter");
  const lines = () => (existsSync(counter) ? readFileSync(counter, "utf8").split("\n").filter(Boolean) : []);
  await pollUntil(lines, (l) => l.length > 0, {
    timeoutMs: 60_000,
    intervalMs: 20,
    what: "the command's start",
  });
  child.proc.kill("SIGSTOP");
  // The command ends in the container (its 1 s sleep) while its worker cannot store anything.
  await new Promise((r) => setTimeout(r, 2500));
  expect((await fx.h.call("GET", `/v1/jobs/${jid}`, { key: t.agentKey })).body.job.status).toBe("running");
  await child.stop("SIGKILL");

  await fx.h.start("worker");
  const job = await waitForJob(fx.h.call, t.agentKey, jid, { timeoutMs: 60_000 });
  expect(job.status, JSON.stringify(job)).toBe("succeeded");
  expect(job.result.content[0].text).toBe("done\n");
  expect(lines()).toEqual(["x"]);
  expect(job.attempts).toHaveLength(2);
  expect(job.attempts[0].outcome).toBe("worker lost");
  expect(job.attempts[1].sandbox).toBe(job.attempts[0].sandbox);
}, 180_000);
