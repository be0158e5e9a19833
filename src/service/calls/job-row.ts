/** A new job row: what every job starts with, so that a new column is defaulted in one place. */
import type { JobRow } from "../../db/rows.js";
import { nowIso } from "../clock.js";

type Given = Pick<
  JobRow,
  "id" | "tenantId" | "sessionId" | "tool" | "input" | "status" | "decision" | "concurrencySafe"
>;

export function newJobRow(fields: Given & Partial<JobRow>): JobRow {
  return {
    result: null,
    idempotencyKey: null,
    requestHash: null,
    // The submitting request's trace id (the caller passes it, a field below): the worker logs
    // the job under it.
    traceId: null,
    hostId: null,
    seq: null,
    cancelRequested: false,
    runs: 0,
    attempts: null,
    error: null,
    approvalExpiresAt: null,
    approvedBy: null,
    createdAt: nowIso(),
    startedAt: null,
    finishedAt: null,
    ...fields,
  };
}
