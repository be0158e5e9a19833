/**
 * Skills live in the database, not under DATA_DIR: a skill uploaded through an API process is at
 * /skills in a session run by a worker with another DATA_DIR (another host's disk), real queue and
 * containers. The API writes no skill file; the worker's cache follows a re-upload and a delete.
 * On SQLite the two data directories share the database file through a link (with Postgres they
 * would share DATABASE_URL); nothing else of the API's DATA_DIR is visible to the worker.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { apiAndWorkerOnOwnDisk } from "../support/api-and-worker.js";
import { seedBashTenant } from "../support/harness.js";
import { jobText, runTool } from "../support/tool-calls.js";
import { pollUntil } from "../support/wait-for-job.js";

const fx = apiAndWorkerOnOwnDisk();

const skillMd = (body: string) => `---\nname: hello\ndescription: Says hello.\n---\n\n${body}\n`;

it("a skill uploaded through the API is at /skills in a session whose worker has another DATA_DIR", async () => {
  const { h, workerDir } = fx;
  const t = await seedBashTenant(h.call);
  const upload = (body: string, script: string) =>
    h.call("POST", `/v1/tenants/${t.tenantId}/skills`, {
      key: t.adminKey,
      body: { files: { "SKILL.md": skillMd(body), "run.sh": script } },
    });
  const up = await upload("# Hello v1", "echo hello-v1\n");
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  // The API process wrote no skill file.
  expect(existsSync(join(h.config.DATA_DIR, "skill-cache"))).toBe(false);
  expect(existsSync(join(h.config.DATA_DIR, "skills"))).toBe(false);

  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const bash = (command: string) => runTool(h.call, t.agentKey, sid, "Bash", { command });
  const first = await bash("cat /skills/hello/SKILL.md && bash /skills/hello/run.sh");
  expect(first.status, JSON.stringify(first)).toBe("succeeded");
  expect(jobText(first)).toBe(`${skillMd("# Hello v1")}hello-v1\n`);
  // Unpacked on the worker's host, under its own DATA_DIR, content-addressed.
  const versions = readdirSync(join(workerDir, "skill-cache", t.tenantId, ".v"));
  expect(versions).toHaveLength(1);
  expect(versions[0]).toMatch(/^[0-9a-f]{64}$/);
  const tamper = await bash("echo x > /skills/hello/run.sh");
  expect(jobText(tamper)).toMatch(/Read-only file system/);

  // A re-upload replaces the skill in the running container (the worker reads the database again
  // within its cache's second); the old version is never half-replaced.
  expect((await upload("# Hello v2", "echo hello-v2\n")).status).toBe(201);
  const second = await pollUntil(
    () => bash("bash /skills/hello/run.sh"),
    (job) => jobText(job) === "hello-v2\n",
    { timeoutMs: 30_000, intervalMs: 300, what: "the re-uploaded skill" },
  );
  expect(second.status).toBe("succeeded");

  const del = await h.call("DELETE", `/v1/tenants/${t.tenantId}/skills/hello`, { key: t.adminKey });
  expect(del.status).toBe(204);
  const gone = await pollUntil(
    () => bash("ls /skills"),
    (job) => jobText(job) === "",
    { timeoutMs: 30_000, intervalMs: 300, what: "the deleted skill to leave /skills" },
  );
  expect(gone.status).toBe("succeeded");
  await h.call("DELETE", `/v1/sessions/${sid}`, { key: t.agentKey });
}, 180_000);
