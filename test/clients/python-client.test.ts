/**
 * The Python client's own tests (clients/python/tests/unit): the retry contract, errors, pages and
 * the event stream against a scripted loopback server. Each Python test is one test here.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { listPythonTests, type PythonOutcome, runPythonTests } from "../support/python-tests.js";

const ids = listPythonTests("tests/unit");
let run: { outcomes: Record<string, PythonOutcome>; log: string };

beforeAll(async () => {
  run = await runPythonTests("tests/unit", {}, 60_000);
}, 90_000);

describe("toolshed_client (Python) unit tests", () => {
  it("finds them", () => expect(ids.length).toBeGreaterThan(15));
  it.each(ids)("%s", (id) => {
    const outcome = run.outcomes[id];
    expect(outcome?.status, outcome?.output ?? run.log).toBe("passed");
  });
});
