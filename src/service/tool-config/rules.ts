/** Tenant rule sets: validated rule strings (400 naming `allow[2]`), stored as strings. */
import { eq } from "drizzle-orm";
import { type Db, dialectOf, first, tablesOf } from "../../db/db.js";
import { preparedFor } from "../../db/prepared.js";
import type { RuleStrings } from "../../db/rows.js";
import { ValidationError } from "../../errors.js";
import { parseRule, parseRuleSet, RuleSetError, RuleSyntaxError } from "../../permission/rules.js";
import type { RuleSet } from "../../permission/types.js";
import { nowIso } from "../clock.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { loadTenant } from "../tenancy/tenants.js";

export const EMPTY_RULES: RuleStrings = { allow: [], deny: [], ask: [] };

/** Bounds on a rule set a tenant writes: every call's decision walks it on the API's one thread. */
export const MAX_RULES_PER_LIST = 500;
export const MAX_RULE_LENGTH = 2048;

/**
 * A 400 naming `deny` (too many) or `deny[3]` (too long). Checked where a set is written or
 * proposed, not where stored sets are read, so a set stored before the bounds keeps working.
 */
export function checkRuleSetBounds(strings: RuleStrings): void {
  const details = (["allow", "deny", "ask"] as const).flatMap((behavior) => {
    const list = strings[behavior];
    if (list.length > MAX_RULES_PER_LIST)
      return [{ path: behavior, message: `${list.length} rules: at most ${MAX_RULES_PER_LIST} per list` }];
    return list.flatMap((rule, i) =>
      rule.length > MAX_RULE_LENGTH
        ? [{ path: `${behavior}[${i}]`, message: `${rule.length} characters: at most ${MAX_RULE_LENGTH}` }]
        : [],
    );
  });
  if (details.length > 0) throw new ValidationError("rule set too large", details);
}

/** Parses rule strings; a bad one is a 400 whose detail path is `<prefix>allow[2]`. */
export function parseRulesOrThrow(strings: RuleStrings, source: string, prefix = ""): RuleSet {
  try {
    return parseRuleSet(strings, source, "§");
  } catch (err) {
    if (!(err instanceof RuleSetError)) throw err;
    const details = err.issues.map((i) => ({ path: i.path.replace(/^§\./, prefix), message: i.message }));
    throw new ValidationError("invalid rule", details);
  }
}

/** Parses a list of rule strings of one behavior; a bad one is a 400 naming `<field>[i]`. */
export function parseRuleListOrThrow(
  list: readonly string[],
  behavior: "allow" | "deny" | "ask",
  field: string,
) {
  const details = list.flatMap((s, i) => {
    try {
      parseRule(s, behavior, "approval");
      return [];
    } catch (err) {
      if (!(err instanceof RuleSyntaxError)) throw err;
      return [{ path: `${field}[${i}]`, message: err.message }];
    }
  });
  if (details.length > 0) throw new ValidationError("invalid rule", details);
}

export async function readTenantRules(db: Db, tenantId: string): Promise<RuleStrings> {
  // Read on every call's decision: prepared on SQLite (see db/prepared.ts).
  if (dialectOf(db) === "sqlite") return preparedFor(db).tenantRules.get({ tenantId })?.rules ?? EMPTY_RULES;
  const { tenantRules } = tablesOf(db);
  const row = await first(db.select().from(tenantRules).where(eq(tenantRules.tenantId, tenantId)).limit(1));
  return row?.rules ?? EMPTY_RULES;
}

export async function getTenantRules(deps: { db: Db }, p: Principal, tenantId: string): Promise<RuleStrings> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  return readTenantRules(deps.db, tenantId);
}

export async function putTenantRules(
  deps: { db: Db },
  p: Principal,
  tenantId: string,
  input: RuleStrings,
): Promise<RuleStrings> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  checkRuleSetBounds(input);
  parseRulesOrThrow(input, "tenant");
  const rules = { allow: [...input.allow], deny: [...input.deny], ask: [...input.ask] };
  const { tenantRules } = tablesOf(deps.db);
  await deps.db
    .insert(tenantRules)
    .values({ tenantId, rules, updatedAt: nowIso() })
    .onConflictDoUpdate({ target: tenantRules.tenantId, set: { rules, updatedAt: nowIso() } });
  return rules;
}
