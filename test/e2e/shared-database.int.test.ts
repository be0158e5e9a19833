/**
 * Two API processes on one DATA_DIR (one SQLite file) under concurrent writes: no answer is a
 * 5xx (`database is locked` used to surface as 500), and every accepted call is stored once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { type ChildService, startChild } from "../support/child-service.js";
import {
  ADMIN_KEY,
  type Client,
  dropRedisKeys,
  httpClient,
  seedTenant,
  testEnv,
} from "../support/harness.js";

const dataDir = mkdtempSync(join(tmpdir(), "tsh-"));
const env = testEnv(dataDir);
const config = loadConfig(env);
const apis: ChildService[] = [];

beforeAll(async () => {
  // One after the other: the first applies the migrations.
  apis.push(await startChild("api", env));
  apis.push(await startChild("api", env));
});
afterAll(async () => {
  await Promise.all(apis.map((a) => a.stop()));
  await dropRedisKeys(config);
  rmSync(dataDir, { recursive: true, force: true });
});

it("two API processes on one SQLite file answer 400 concurrent writes without a 5xx", async () => {
  const [one, two] = apis.map((a) => httpClient(a.url)) as [Client, Client];
  const t = await seedTenant(one);
  await one("PUT", `/v1/tenants/${t.tenantId}/rules`, {
    key: t.adminKey,
    body: { allow: ["Read"], deny: ["Bash(rm:*)"], ask: [] },
  });
  const sessions = await Promise.all(
    [one, two, one, two].map(
      async (c) => (await c("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id as string,
    ),
  );
  const n = 400;
  const answers = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const c = i % 2 ? one : two;
      const sid = sessions[i % sessions.length]!;
      const kind = i % 5;
      if (kind === 0) return c("POST", "/v1/sessions", { key: t.agentKey, body: {} });
      if (kind === 1)
        return c("PUT", `/v1/tenants/${t.tenantId}/settings`, {
          key: ADMIN_KEY,
          body: { approvalTtlSeconds: 60 + i },
        });
      const body =
        kind === 2
          ? { tool: "Bash", input: { command: `rm f${i}` }, idempotencyKey: `k${i % 50}-${i % 2}` }
          : { tool: "Read", input: { file_path: `/workspace/f${i}` }, idempotencyKey: `r${i}` };
      return c("POST", `/v1/sessions/${sid}/calls`, { key: t.agentKey, body });
    }),
  );
  const errors = answers.filter((r) => r.status >= 500).map((r) => JSON.stringify(r.body));
  expect(errors, errors.slice(0, 3).join("\n")).toEqual([]);
  const codes = new Set(answers.map((r) => r.status));
  expect(
    [...codes].every((s) => [200, 201, 202, 409].includes(s)),
    JSON.stringify([...codes]),
  ).toBe(true);
}, 120_000);
