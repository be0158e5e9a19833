import { describe, expect, it } from "vitest";
import { checkPermission } from "../../src/permission/engine.js";
import type { PermissionDecision, PermissionMode, ToolDecision } from "../../src/permission/types.js";
import { fakeContext as ctx, type FakeOptions, fakeSubject } from "./fake-subject.js";

const INPUT = { arg: "value" };
const SUGGEST = ["Fake(/s/**)"];

const TOOL_ALLOW: ToolDecision = {
  behavior: "allow",
  message: "tool says yes",
  reason: "because",
  bypassImmune: false,
};
const TOOL_DENY: ToolDecision = {
  behavior: "deny",
  message: "tool says no",
  reason: "nope",
  bypassImmune: false,
};
const SAFETY_ASK: ToolDecision = {
  behavior: "ask",
  message: "Permission required: danger",
  reason: "Safety check: danger",
  bypassImmune: true,
};
const SOFT_ASK: ToolDecision = {
  behavior: "ask",
  message: "soft",
  reason: "soft reason",
  bypassImmune: false,
};

// Expected decisions, by how they come about.
const byDenyRule: PermissionDecision = {
  behavior: "deny",
  message: "Permission to use Fake has been denied",
  reason: "Rule: x",
  rule: "Fake(x)",
  bypassImmune: false,
  suggestions: null,
  decidedBy: "rule",
};
const byAskRule: PermissionDecision = {
  behavior: "ask",
  message: "Permission required for Fake",
  reason: "Rule: x",
  rule: "Fake(x)",
  bypassImmune: false,
  suggestions: SUGGEST,
  decidedBy: "rule",
};
const byAllowRule: PermissionDecision = {
  behavior: "allow",
  message: "Permission granted for Fake",
  reason: null,
  rule: "Fake(x)",
  bypassImmune: false,
  suggestions: null,
  decidedBy: "rule",
  updatedInput: INPUT,
};
const converted = (reason: string, extra: Partial<PermissionDecision> = {}): PermissionDecision => ({
  behavior: "deny",
  message: "Permission denied for Fake (dont_ask mode - ASK converted to DENY, user not available)",
  reason: `DONT_ASK mode converted ASK to DENY. Original reason: ${reason}`,
  bypassImmune: false,
  suggestions: SUGGEST,
  decidedBy: "tool",
  ...extra,
});
const fromTool = (d: ToolDecision, suggestions: string[] | null = null): PermissionDecision => ({
  ...d,
  behavior: d.behavior as PermissionDecision["behavior"],
  suggestions,
  decidedBy: "tool",
});
const mode = (
  behavior: PermissionDecision["behavior"],
  message: string,
  reason: string,
  suggestions: string[] | null = null,
) =>
  ({
    behavior,
    message,
    reason,
    bypassImmune: false,
    suggestions,
    decidedBy: "mode",
  }) satisfies PermissionDecision;

const exploreDeny = mode(
  "deny",
  "Permission denied for Fake (explore mode is read-only)",
  "Explore mode does not allow modifications",
);
const exploreAllow = mode(
  "allow",
  "Permission granted for Fake (explore mode - read-only invocation)",
  "Explore mode allows read-only operations",
);
const acceptReadOnly = mode(
  "allow",
  "Permission granted for Fake (accept edits mode - read-only invocation)",
  "Accept edits mode allows read-only operations",
);
const bypassAllow = mode(
  "allow",
  "Permission granted for Fake (bypass mode)",
  "Bypass mode allows all operations",
);
const dontAskDeny = mode(
  "deny",
  "Permission denied for Fake (dont_ask mode - user not available)",
  "User is not available to answer permission prompts",
);
const defaultAsk = (m: string) => mode("ask", "Permission required for Fake", `Mode: ${m}`, SUGGEST);

interface Scenario {
  fake: FakeOptions;
  rules?: { allow?: string[]; deny?: string[]; ask?: string[] };
}
const SCENARIOS: Record<string, Scenario> = {
  "deny rule": {
    fake: { own: TOOL_ALLOW, readOnly: true },
    rules: { deny: ["Fake(x)"], ask: ["Fake(x)"], allow: ["Fake(x)"] },
  },
  "ask rule": { fake: { own: TOOL_ALLOW, readOnly: true }, rules: { ask: ["Fake(x)"], allow: ["Fake(x)"] } },
  "tool allow": { fake: { own: TOOL_ALLOW } },
  "tool deny": { fake: { own: TOOL_DENY }, rules: { allow: ["Fake(x)"] } },
  "safety ask": { fake: { own: SAFETY_ASK } },
  "safety ask + allow rule": { fake: { own: SAFETY_ASK }, rules: { allow: ["Fake(x)"] } },
  "non-immune ask": { fake: { own: SOFT_ASK } },
  "non-immune ask + allow rule": { fake: { own: SOFT_ASK }, rules: { allow: ["Fake(x)"] } },
  passthrough: { fake: {} },
  "allow rule": { fake: {}, rules: { allow: ["Fake(x)"] } },
  "read-only, nothing else": { fake: { readOnly: true } },
  "read-only, tool deny": { fake: { readOnly: true, own: TOOL_DENY } },
  "non-matching rules": { fake: {}, rules: { allow: ["Fake(y)"], deny: ["Fake(y)"], ask: ["Fake(y)"] } },
};

type Row = [PermissionMode, keyof typeof SCENARIOS, PermissionDecision];
const TABLE: Row[] = [
  // DEFAULT
  ["default", "deny rule", byDenyRule],
  ["default", "ask rule", byAskRule],
  ["default", "tool allow", fromTool(TOOL_ALLOW)],
  ["default", "tool deny", fromTool(TOOL_DENY)],
  ["default", "safety ask", fromTool(SAFETY_ASK, SUGGEST)],
  ["default", "safety ask + allow rule", fromTool(SAFETY_ASK, SUGGEST)],
  ["default", "non-immune ask", defaultAsk("default")],
  ["default", "non-immune ask + allow rule", byAllowRule],
  ["default", "passthrough", defaultAsk("default")],
  ["default", "allow rule", byAllowRule],
  ["default", "read-only, nothing else", defaultAsk("default")],
  ["default", "read-only, tool deny", fromTool(TOOL_DENY)],
  ["default", "non-matching rules", defaultAsk("default")],
  // ACCEPT_EDITS
  ["accept_edits", "deny rule", byDenyRule],
  ["accept_edits", "ask rule", byAskRule],
  ["accept_edits", "tool allow", fromTool(TOOL_ALLOW)],
  ["accept_edits", "tool deny", fromTool(TOOL_DENY)],
  ["accept_edits", "safety ask", fromTool(SAFETY_ASK, SUGGEST)],
  ["accept_edits", "safety ask + allow rule", fromTool(SAFETY_ASK, SUGGEST)],
  ["accept_edits", "non-immune ask", defaultAsk("accept_edits")],
  ["accept_edits", "non-immune ask + allow rule", byAllowRule],
  ["accept_edits", "passthrough", defaultAsk("accept_edits")],
  ["accept_edits", "allow rule", byAllowRule],
  ["accept_edits", "read-only, nothing else", acceptReadOnly],
  ["accept_edits", "read-only, tool deny", acceptReadOnly],
  ["accept_edits", "non-matching rules", defaultAsk("accept_edits")],
  // EXPLORE: only the read-only verdict decides after deny/ask rules.
  ["explore", "deny rule", byDenyRule],
  ["explore", "ask rule", byAskRule],
  ["explore", "tool allow", exploreDeny],
  ["explore", "tool deny", exploreDeny],
  ["explore", "safety ask", exploreDeny],
  ["explore", "safety ask + allow rule", exploreDeny],
  ["explore", "non-immune ask", exploreDeny],
  ["explore", "non-immune ask + allow rule", exploreDeny],
  ["explore", "passthrough", exploreDeny],
  ["explore", "allow rule", exploreDeny],
  ["explore", "read-only, nothing else", exploreAllow],
  ["explore", "read-only, tool deny", exploreAllow],
  ["explore", "non-matching rules", exploreDeny],
  // BYPASS
  ["bypass", "deny rule", byDenyRule],
  ["bypass", "ask rule", byAskRule],
  ["bypass", "tool allow", fromTool(TOOL_ALLOW)],
  ["bypass", "tool deny", fromTool(TOOL_DENY)],
  ["bypass", "safety ask", bypassAllow],
  ["bypass", "safety ask + allow rule", byAllowRule],
  ["bypass", "non-immune ask", bypassAllow],
  ["bypass", "non-immune ask + allow rule", byAllowRule],
  ["bypass", "passthrough", bypassAllow],
  ["bypass", "allow rule", byAllowRule],
  ["bypass", "read-only, nothing else", bypassAllow],
  ["bypass", "read-only, tool deny", fromTool(TOOL_DENY)],
  ["bypass", "non-matching rules", bypassAllow],
  // DONT_ASK: every ASK becomes DENY; no read-only fast path.
  ["dont_ask", "deny rule", byDenyRule],
  ["dont_ask", "ask rule", converted("Rule: x", { rule: "Fake(x)", decidedBy: "rule" })],
  ["dont_ask", "tool allow", fromTool(TOOL_ALLOW)],
  ["dont_ask", "tool deny", fromTool(TOOL_DENY)],
  ["dont_ask", "safety ask", converted("Safety check: danger")],
  ["dont_ask", "safety ask + allow rule", converted("Safety check: danger")],
  ["dont_ask", "non-immune ask", dontAskDeny],
  ["dont_ask", "non-immune ask + allow rule", byAllowRule],
  ["dont_ask", "passthrough", dontAskDeny],
  ["dont_ask", "allow rule", byAllowRule],
  ["dont_ask", "read-only, nothing else", dontAskDeny],
  ["dont_ask", "read-only, tool deny", fromTool(TOOL_DENY)],
  ["dont_ask", "non-matching rules", dontAskDeny],
];

describe("checkPermission: mode × path", () => {
  it.each(TABLE)("%s / %s", (m, name, expected) => {
    const scenario = SCENARIOS[name] as Scenario;
    const decision = checkPermission(fakeSubject(scenario.fake), INPUT, ctx(m, scenario.rules));
    expect(decision).toEqual(expected);
  });

  it("covers every mode for every scenario", () => {
    for (const m of ["default", "accept_edits", "explore", "bypass", "dont_ask"] as const) {
      expect(TABLE.filter((r) => r[0] === m).map((r) => r[1])).toEqual(Object.keys(SCENARIOS));
    }
  });
});
