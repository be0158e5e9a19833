/**
 * A generated admin key never reaches a log: the first start writes it to DATA_DIR/admin.key
 * (mode 0600) and logs only that path; a second start generates nothing.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { startChild } from "../support/child-service.js";
import { dropRedisKeys, httpClient, testEnv } from "../support/harness.js";

const dataDir = mkdtempSync(join(tmpdir(), "tsh-"));
const env = testEnv(dataDir);
const config = loadConfig(env);
afterAll(async () => {
  await dropRedisKeys(config);
  rmSync(dataDir, { recursive: true, force: true });
});

it("the first start writes the key to a 0600 file and logs only its path", async () => {
  const api = await startChild("api", env, { TOOLSHED_ADMIN_KEY: undefined });
  await api.stop();
  const file = join(dataDir, "admin.key");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const key = readFileSync(file, "utf8").trim();
  expect(key).toMatch(/^tsk_[\w-]{20,}$/);
  const output = api.lines.join("\n");
  expect(output).not.toContain(key);
  expect(output).not.toMatch(/tsk_[\w-]{20,}/);
  expect(api.lines.some((l) => l.includes(file) && l.includes("admin key"))).toBe(true);

  // The key works, and a second start neither generates nor logs one.
  const again = await startChild("api", env, { TOOLSHED_ADMIN_KEY: undefined });
  const created = await httpClient(again.url)("POST", "/v1/tenants", { key, body: { name: "first" } });
  await again.stop();
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(again.lines.some((l) => l.includes("admin key"))).toBe(false);
});
