/**
 * File transfers between an API and a worker that share no disk (different DATA_DIRs, as on two
 * hosts): the bytes of an upload reach the worker, and those of a download or export reach the
 * API, through the shared staging (Redis), and nothing is staged under either DATA_DIR. The two
 * share only what hosts share: the database (one SQLite file linked into the worker's DATA_DIR,
 * or the harness's Postgres when the tests run on it), Redis, the secret key.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningService, startService } from "../../src/cli/compose.js";
import { readTar } from "../../src/toolkit/skills/tar-reader.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";
import { jobText, runTool } from "../support/tool-calls.js";

let h: Harness;
let worker: RunningService;
let workerDir: string;
let t: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

async function raw(method: string, path: string, body?: Buffer) {
  const res = await fetch(h.url + path, {
    method,
    headers: {
      authorization: `Bearer ${t.agentKey}`,
      ...(body ? { "content-type": "application/octet-stream" } : {}),
    },
    body: body ? new Uint8Array(body) : undefined,
  });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

beforeAll(async () => {
  const secret = randomBytes(32).toString("base64");
  h = await startHarness({
    mode: "api",
    // Three chunks of the staging (1 MiB each) for the largest file below.
    env: { TOOLSHED_SECRET_KEY: secret, FILE_TRANSFER_MAX_BYTES: String(4 * 1024 * 1024) },
  });
  workerDir = mkdtempSync(join(tmpdir(), "tsw-"));
  // The database is the one thing of the API's DATA_DIR the worker sees (unused on Postgres:
  // the worker takes DATABASE_URL from the same configuration).
  symlinkSync(join(h.config.DATA_DIR, "toolshed.db"), join(workerDir, "toolshed.db"));
  worker = await startService({ ...h.config, DATA_DIR: workerDir, PORT: 0 }, "worker");
  t = await seedTenant(h.call);
  const rules = { allow: ["Bash", "Read", "Write(/workspace/**)"], deny: [], ask: [] };
  await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
  sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
});

afterAll(async () => {
  await worker?.stop();
  await h?.stop();
  if (workerDir) rmSync(workerDir, { recursive: true, force: true });
});

it("an upload through the API reaches the worker, and a download comes back, with no shared disk", async () => {
  const data = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(2_500_000)]);
  const up = await raw("PUT", `/v1/sessions/${sid}/files?path=big.bin`, data);
  expect(up.status, up.bytes.toString()).toBe(200);
  // The worker wrote what the API received: the sandbox's own hash of the file.
  const job = await runTool(h.call, t.agentKey, sid, "Bash", {
    command: "sha256sum big.bin | cut -d' ' -f1",
  });
  expect(jobText(job)).toBe(`${sha(data)}\n`);

  const made = await runTool(h.call, t.agentKey, sid, "Bash", {
    command: "head -c 1200000 /dev/urandom > made.bin; sha256sum made.bin | cut -d' ' -f1",
  });
  const down = await raw("GET", `/v1/sessions/${sid}/files?path=made.bin`);
  expect(down.status).toBe(200);
  expect(`${sha(down.bytes)}\n`).toBe(jobText(made));

  const tar = await raw("GET", `/v1/sessions/${sid}/workspace.tar`);
  expect(tar.status).toBe(200);
  const names = readTar(tar.bytes).map((e) => e.path.replace(/^\.\//, ""));
  expect(names).toEqual(expect.arrayContaining(["big.bin", "made.bin"]));

  // Nothing was staged on either host's disk.
  for (const dir of [h.config.DATA_DIR, workerDir]) {
    expect(existsSync(join(dir, "transfers")), `${dir}: ${readdirSync(dir).join(", ")}`).toBe(false);
  }
});
