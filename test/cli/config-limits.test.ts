/**
 * Settings whose value must stay on one side of another component's: MCP progress notices come
 * more often than the MCP client's default request timeout, which each one resets; otherwise a
 * long call ends at the client before its result arrives.
 */
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";

it("MCP progress comes more often than the MCP client's default timeout, by default and as set", () => {
  expect(loadConfig({}).MCP_PROGRESS_INTERVAL_MS).toBeLessThan(DEFAULT_REQUEST_TIMEOUT_MSEC);
  expect(loadConfig({ MCP_PROGRESS_INTERVAL_MS: "500" }).MCP_PROGRESS_INTERVAL_MS).toBe(500);
  expect(() => loadConfig({ MCP_PROGRESS_INTERVAL_MS: String(DEFAULT_REQUEST_TIMEOUT_MSEC) })).toThrow(
    /MCP_PROGRESS_INTERVAL_MS: must be below 60000/,
  );
  expect(() => loadConfig({ MCP_PROGRESS_INTERVAL_MS: "50" })).toThrow(/MCP_PROGRESS_INTERVAL_MS/);
});

it("retention: days are 0 (forever) up to 36500, and the audit trail is never kept shorter than jobs", () => {
  const c = loadConfig({});
  expect([c.JOB_RETENTION_DAYS, c.AUDIT_RETENTION_DAYS, c.SESSION_RETENTION_DAYS]).toEqual([30, 400, 30]);
  expect(c.AUDIT_RETENTION_DAYS).toBeGreaterThanOrEqual(c.JOB_RETENTION_DAYS);
  expect(loadConfig({ JOB_RETENTION_DAYS: "0", AUDIT_RETENTION_DAYS: "0" }).JOB_RETENTION_DAYS).toBe(0);
  expect(loadConfig({ JOB_RETENTION_DAYS: "90", AUDIT_RETENTION_DAYS: "0" }).AUDIT_RETENTION_DAYS).toBe(0);
  expect(() => loadConfig({ JOB_RETENTION_DAYS: "90", AUDIT_RETENTION_DAYS: "60" })).toThrow(
    /AUDIT_RETENTION_DAYS: must be 0 \(forever\) or at least JOB_RETENTION_DAYS \(90\)/,
  );
  for (const bad of ["-1", "1.5", "36501", "soon"])
    expect(() => loadConfig({ JOB_RETENTION_DAYS: bad }), bad).toThrow(/JOB_RETENTION_DAYS/);
  expect(() => loadConfig({ PRUNE_BATCH: "0" })).toThrow(/PRUNE_BATCH/);
  expect(() => loadConfig({ PRUNE_BATCH: "10001" })).toThrow(/PRUNE_BATCH: must be at most 10000/);
});
