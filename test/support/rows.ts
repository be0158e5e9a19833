/**
 * Rows the database tests seed, in one place: an allowed decision, a session, a job (through
 * the service's own `newJobRow`, so a new column gets its default there once).
 */
import type { JobRow, SessionRow, StoredDecision } from "../../src/db/rows.js";
import { newJobRow } from "../../src/service/calls/job-row.js";

/** What a rule allowing the call stores. */
export const ALLOW_DECISION: StoredDecision = {
  behavior: "allow",
  message: "",
  reason: null,
  mode: "default",
  bypassImmune: false,
  suggestions: [],
  decidedBy: "rule",
};

type NewSession = Omit<
  SessionRow,
  "tools" | "toolGroups" | "skills" | "activeGroups" | "nextSeq" | "hostId" | "workspaceLost"
> &
  Partial<SessionRow>;

/** An active session with no rules, in /workspace; `fields` override. */
export function sessionRow(fields: Pick<SessionRow, "id" | "tenantId"> & Partial<SessionRow>): NewSession {
  const now = new Date().toISOString();
  return {
    mode: "default",
    cwd: "/workspace",
    home: "/home/agent",
    workingDirectories: [],
    rules: { allow: [], deny: [], ask: [] },
    status: "active",
    createdAt: now,
    lastUsedAt: now,
    ...fields,
  };
}

/** A queued, allowed `Bash true` call that is not concurrency-safe; `fields` override. */
export function jobRow(fields: Pick<JobRow, "id" | "tenantId" | "sessionId"> & Partial<JobRow>): JobRow {
  return newJobRow({
    tool: "Bash",
    input: { command: "true" },
    status: "queued",
    decision: ALLOW_DECISION,
    concurrencySafe: false,
    ...fields,
  });
}
