/**
 * The retry rules and error codes both clients share are derived from the OpenAPI document
 * (src/cli/client-contract.ts) and committed for each: the copies must be what the routes give now.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  clientContract,
  PYTHON_CONTRACT,
  renderPython,
  renderTypeScript,
  TYPESCRIPT_CONTRACT,
} from "../../src/cli/client-contract.js";
import { ERROR_STATUS } from "../../src/errors.js";

const contract = clientContract();
const committed = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");

describe("the clients' shared contract", () => {
  it("is committed as the OpenAPI document gives it now (else: npm run client:build)", () => {
    expect(committed(PYTHON_CONTRACT)).toBe(renderPython(contract));
    expect(committed(TYPESCRIPT_CONTRACT)).toBe(renderTypeScript(contract));
  });

  it("names every error code the service has, and retries only what cannot run twice", () => {
    expect(contract.errorCodes).toEqual(Object.keys(ERROR_STATUS).sort());
    expect(contract.retryAfterStatuses).toEqual([429, 503]);
    expect(contract.pending).toEqual({ status: 504, code: "TRANSFER_PENDING" });
    expect(contract.jobStatuses).toEqual(
      expect.arrayContaining(["queued", "succeeded", "awaiting_external"]),
    );
    expect(contract.networkRetry).toMatchObject({
      getJob: "always",
      deleteSession: "always",
      setRules: "always",
      decideCall: "always",
      dryRunRules: "always",
      submitCall: "with_idempotency_key",
      createSession: "never",
      answerApproval: "never",
      // PUTs that make a job as they are received.
      uploadFile: "never",
      importWorkspace: "never",
    });
  });
});
