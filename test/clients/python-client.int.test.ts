/**
 * The Python client (clients/python) against the real server, queue and sandbox: its integration
 * tests (clients/python/tests/integration) run with TOOLSHED_URL and TOOLSHED_ADMIN_KEY of a
 * harness, each one a test here, its traceback the failure message. A Python test that skips fails.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, type Harness, startHarness } from "../support/harness.js";
import { listPythonTests, type PythonOutcome, runPythonTests } from "../support/python-tests.js";

const ids = listPythonTests("tests/integration");
let h: Harness;
let run: { outcomes: Record<string, PythonOutcome>; log: string };

beforeAll(async () => {
  h = await startHarness();
  run = await runPythonTests("tests/integration", { TOOLSHED_URL: h.url, TOOLSHED_ADMIN_KEY: ADMIN_KEY });
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

describe("toolshed_client (Python) against the server", () => {
  it("finds them", () => expect(ids.length).toBeGreaterThan(3));
  it.each(ids)("%s", (id) => {
    const outcome = run.outcomes[id];
    expect(outcome?.status, outcome?.output ?? run.log).toBe("passed");
  });
});
