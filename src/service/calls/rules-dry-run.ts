/**
 * A rules dry run: re-decides the tenant's recent calls with the stored rule set and with a
 * proposed one (the policy engine, through `dryRunDecision`), and lists the calls whose decision
 * would change. Nothing is stored or run.
 */
import { desc, eq } from "drizzle-orm";
import { tablesOf } from "../../db/db.js";
import type { JobRow, RuleStrings, StoredDecision } from "../../db/rows.js";
import { AppError } from "../../errors.js";
import type { McpToolSet } from "../../toolkit/tool-group.js";
import { type SessionToolsDeps, sessionMcpTools } from "../sessions/tool-list.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { loadTenant } from "../tenancy/tenants.js";
import { checkRuleSetBounds, parseRulesOrThrow, readTenantRules } from "../tool-config/rules.js";
import { dryRunDecision } from "./decide.js";

export const DRY_RUN_DEFAULT_JOBS = 100;

export interface DecisionFace {
  behavior: StoredDecision["behavior"];
  reason: StoredDecision["reason"];
  message: string;
  rule?: StoredDecision["rule"];
}

export interface RuleChange {
  jobId: string;
  sessionId: string;
  tool: string;
  input: Record<string, unknown>;
  createdAt: string;
  before: DecisionFace;
  after: DecisionFace;
}

export interface RulesDryRun {
  /** How many recent calls were decided again (those of ended sessions are skipped). */
  checked: number;
  skipped: number;
  changes: RuleChange[];
}

export async function dryRunRules(
  deps: SessionToolsDeps,
  p: Principal,
  tenantId: string,
  proposed: RuleStrings,
  opts: { limit?: number } = {},
): Promise<RulesDryRun> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  // A bad proposal is a 400 naming `allow[2]`, exactly as saving it would be.
  checkRuleSetBounds(proposed);
  parseRulesOrThrow(proposed, "tenant");
  const current = await readTenantRules(deps.db, tenantId);
  const { jobs } = tablesOf(deps.db);
  const recent = await deps.db
    .select()
    .from(jobs)
    .where(eq(jobs.tenantId, tenantId))
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(opts.limit ?? DRY_RUN_DEFAULT_JOBS);
  // One MCP listing per session, not per call.
  const mcpsBySession = new Map<string, Promise<McpToolSet[]>>();
  const result: RulesDryRun = { checked: 0, skipped: 0, changes: [] };
  for (const job of recent) {
    const decided = await decideBoth(deps, p, job, current, proposed, mcpsBySession);
    if (!decided) {
      result.skipped++;
      continue;
    }
    result.checked++;
    const [before, after] = decided;
    if (before.behavior === after.behavior && before.reason === after.reason) continue;
    result.changes.push({
      jobId: job.id,
      sessionId: job.sessionId,
      tool: job.tool,
      input: job.input,
      createdAt: job.createdAt,
      before: face(before),
      after: face(after),
    });
  }
  return result;
}

/** Both decisions, or undefined when the call cannot be decided now (session ended, tool gone). */
async function decideBoth(
  deps: SessionToolsDeps,
  p: Principal,
  job: JobRow,
  current: RuleStrings,
  proposed: RuleStrings,
  mcpsBySession: Map<string, Promise<McpToolSet[]>>,
): Promise<[StoredDecision, StoredDecision] | undefined> {
  try {
    let mcps = mcpsBySession.get(job.sessionId);
    if (!mcps) {
      mcps = sessionMcpTools(deps, { id: job.sessionId, tenantId: job.tenantId });
      mcpsBySession.set(job.sessionId, mcps);
    }
    const listed = await mcps;
    const call = { tool: job.tool, input: job.input };
    const before = await dryRunDecision(deps, p, job.sessionId, call, { tenantRules: current, mcps: listed });
    const after = await dryRunDecision(deps, p, job.sessionId, call, { tenantRules: proposed, mcps: listed });
    return [before, after];
  } catch (err) {
    // A session that ended, a tool no longer there or an input the tool now refuses: not comparable.
    if (err instanceof AppError) return undefined;
    throw err;
  }
}

function face(d: StoredDecision): DecisionFace {
  return { behavior: d.behavior, reason: d.reason, message: d.message, ...(d.rule ? { rule: d.rule } : {}) };
}
