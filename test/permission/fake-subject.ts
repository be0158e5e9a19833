/**
 * A configurable fake PermissionSubject for engine tests: its own verdict, read-only flag and
 * rule matching are set per case, and it counts checkPermissions calls.
 */
import { parseRule, type RuleStrings } from "../../src/permission/rules.js";
import type {
  PermissionContext,
  PermissionMode,
  PermissionRule,
  PermissionSubject,
  ToolDecision,
} from "../../src/permission/types.js";

/** What a fake subject answers. */
export interface FakeOptions {
  own?: ToolDecision;
  readOnly?: boolean;
  /** Rule contents this subject matches. */
  matches?: readonly string[];
  matchAllowRules?: PermissionSubject["matchAllowRules"];
}

/** A PASSTHROUGH with an empty message, like Write's. */
export const PASSTHROUGH: ToolDecision = {
  behavior: "passthrough",
  message: "",
  reason: null,
  bypassImmune: false,
};

/** The fake's single suggestion. */
export const FAKE_SUGGESTION: PermissionRule = {
  toolName: "Fake",
  ruleContent: "/s/**",
  behavior: "allow",
  source: "suggested",
};

/** Builds a fake subject named `Fake` plus a counter of checkPermissions calls. */
export function fakeSubject(opts: FakeOptions = {}): PermissionSubject & { calls: number } {
  const subject = {
    name: "Fake",
    calls: 0,
    checkPermissions(): ToolDecision {
      subject.calls++;
      return opts.own ?? PASSTHROUGH;
    },
    checkReadOnly: () => opts.readOnly ?? false,
    matchRule: (content: string) => (opts.matches ?? ["x"]).includes(content),
    generateSuggestions: () => [FAKE_SUGGESTION],
    ...(opts.matchAllowRules ? { matchAllowRules: opts.matchAllowRules } : {}),
  };
  return subject;
}

/** A context in /workspace with rules given as strings. */
export function fakeContext(mode: PermissionMode, rules: RuleStrings = {}): PermissionContext {
  const parse = (list: readonly string[] | undefined, b: "allow" | "deny" | "ask") =>
    (list ?? []).map((s) => parseRule(s, b, "test"));
  return {
    mode,
    cwd: "/workspace",
    home: "/home/agent",
    workingDirectories: [],
    rules: {
      allow: parse(rules.allow, "allow"),
      deny: parse(rules.deny, "deny"),
      ask: parse(rules.ask, "ask"),
    },
  } satisfies PermissionContext;
}
