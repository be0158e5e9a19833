/** Tenant settings reach live sessions from their next call (no session restart). */
import { afterEach, beforeEach, expect, it } from "vitest";
import { newTenantCase, scenarioHelpers, type TenantCase } from "./tenancy-fixture.js";

let t: TenantCase["t"];
let a: TenantCase["a"];
let sid: string;

const { as, settings, submit } = scenarioHelpers(() => ({ t, a, sid }));

beforeEach(async () => {
  ({ t, a, sid } = await newTenantCase());
});
afterEach(() => t.close());

it("turning allowBypass off makes a live bypass session decide as default; on again restores it", async () => {
  await settings({ allowBypass: true });
  expect((await as(a.agentKey, "PATCH", `/v1/sessions/${sid}`, { mode: "bypass" })).body.mode).toBe("bypass");
  expect(await submit("Bash", { command: "npm test" })).toMatchObject({
    status: "queued",
    decision: { behavior: "allow", mode: "bypass" },
  });

  await settings({ allowBypass: false });
  expect(await submit("Bash", { command: "npm test" })).toMatchObject({
    status: "awaiting_approval",
    decision: { behavior: "ask", mode: "default" },
  });
  const dry = await as(a.agentKey, "POST", `/v1/sessions/${sid}/decisions`, {
    tool: "Bash",
    input: { command: "npm test" },
  });
  expect(dry.body.decision).toMatchObject({ behavior: "ask", mode: "default" });

  await settings({ allowBypass: true });
  expect(await submit("Bash", { command: "npm test" })).toMatchObject({ decision: { mode: "bypass" } });
});
