/**
 * A line logged inside a job carries the job's id and the trace id of the request that submitted
 * it, and a request's error line its request id and trace id, through the real API, queue and
 * worker: the context is passed explicitly (src/log.ts), so a line the worker logs without naming
 * the trace (a tool that threw) still carries it. No sandbox is needed (NullSandboxProvider).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { createLogger } from "../../src/log.js";
import { toolRegistry } from "../../src/service/ports.js";
import { createBuiltinTools } from "../../src/toolkit/builtins.js";
import { FunctionTool } from "../../src/toolkit/function-tool.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";
import { logLines } from "../support/log-lines.js";
import { NullSandboxProvider } from "../support/null-sandbox.js";
import { pollUntil } from "../support/wait-for-job.js";

const { lines, sink } = logLines();

const boom = new FunctionTool({
  name: "boom",
  description: "Always throws.",
  schema: z.object({}),
  fn: () => {
    throw new Error("boom");
  },
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    start: {
      logger: createLogger("info", sink),
      sandboxes: new NullSandboxProvider(),
      tools: toolRegistry([...createBuiltinTools(), boom]),
    },
  });
});
afterAll(async () => {
  await h?.stop();
});

it("the worker's line for a job carries its id and its request's trace id", async () => {
  const t = await seedTenant(h.call);
  await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, {
    key: t.adminKey,
    body: { allow: ["boom"], deny: [], ask: [] },
  });
  const sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
  const traceId = "0af7651916cd43dd8448eb211c80319c";
  const res = await h.call("POST", `/v1/sessions/${sid}/calls?wait=30`, {
    key: t.agentKey,
    body: { tool: "boom", input: {} },
    headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01`, "x-request-id": "ctx-job" },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const jobId = res.body.job.id;
  const threw = await pollUntil(
    () => lines.find((l) => l.msg === "tool threw" && l.jobId === jobId),
    (l) => l !== undefined,
  );
  // "tool threw" names the job itself, not the trace: the trace comes from the job's logger.
  expect(threw).toMatchObject({ jobId, traceId, tool: "boom" });
  expect(lines.find((l) => l.msg === "request" && l.requestId === "ctx-job")).toMatchObject({ traceId });
});
