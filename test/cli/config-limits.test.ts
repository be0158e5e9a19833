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
