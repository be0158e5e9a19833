/**
 * The Python client (clients/python), its tests run by `python3 -m unittest`, one vitest test per
 * Python test (its traceback the failure message; a Python test that skips fails here): the unit
 * tests (the retry contract, errors, pages, the event stream against a scripted loopback server),
 * then the integration tests against a harness (TOOLSHED_URL, TOOLSHED_ADMIN_KEY). In this project,
 * not `unit`, because python3 is a host package (scripts/services.sh installs it): the unit project
 * needs nothing but Node (NOTES-newcomer24).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, type Harness, startHarness } from "../support/harness.js";
import { listPythonTests, type PythonOutcome, runPythonTests } from "../support/python-tests.js";

type Run = { outcomes: Record<string, PythonOutcome>; log: string };

function eachPythonTest(ids: string[], run: () => Run): void {
  it("finds them", () => expect(ids.length).toBeGreaterThan(3));
  it.each(ids)("%s", (id) => {
    const outcome = run().outcomes[id];
    expect(outcome?.status, outcome?.output ?? run().log).toBe("passed");
  });
}

describe("toolshed_client (Python) unit tests", () => {
  const ids = listPythonTests("tests/unit");
  let run: Run;
  beforeAll(async () => {
    run = await runPythonTests("tests/unit", {}, 60_000);
  }, 90_000);
  eachPythonTest(ids, () => run);
});

describe("toolshed_client (Python) against the server", () => {
  const ids = listPythonTests("tests/integration");
  let h: Harness;
  let run: Run;
  beforeAll(async () => {
    h = await startHarness();
    run = await runPythonTests("tests/integration", { TOOLSHED_URL: h.url, TOOLSHED_ADMIN_KEY: ADMIN_KEY });
  }, 180_000);
  afterAll(async () => {
    await h?.stop();
  });
  eachPythonTest(ids, () => run);
});
