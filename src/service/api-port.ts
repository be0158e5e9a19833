/**
 * The verbs the HTTP API may call, already bound to the service's dependencies: routes see this
 * port, never the bag (database, queue, sandboxes, caches), so what the API can reach is listed here.
 */
import { randomBytes } from "node:crypto";
import { answerApproval } from "./calls/answer-approval.js";
import { expireIfDue } from "./calls/approval-expiry.js";
import { listApprovals } from "./calls/approvals-inbox.js";
import { listAudit } from "./calls/audit.js";
import { dryRunDecision } from "./calls/decide.js";
import { postExternalResult } from "./calls/external-result.js";
import { followApprovals } from "./calls/follow-approvals.js";
import { followJobEvents } from "./calls/follow-job-events.js";
import { cancelJob, getJob, waitForJob } from "./calls/job-verbs.js";
import { listJobs } from "./calls/list-jobs.js";
import { policyCheck } from "./calls/policy-check.js";
import { dryRunRules } from "./calls/rules-dry-run.js";
import { submitCall } from "./calls/submit-call.js";
import { downloadFile, exportWorkspace, importWorkspace, uploadFile } from "./files/workspace-files.js";
import type { Metrics } from "./metrics.js";
import type { ServiceDeps } from "./ports.js";
import type { Readiness } from "./readiness.js";
import { listSessions } from "./sessions/list-sessions.js";
import { listMcpServersWithHealth, listMcpServerTools } from "./sessions/mcp-clients.js";
import { callSessionTool, listSessionMcpTools } from "./sessions/session-mcp-verbs.js";
import { createSession, deleteSession, getSession, loadSession, updateSession } from "./sessions/sessions.js";
import { listSessionTools } from "./sessions/tool-list.js";
import { authenticate, createKey, listKeys, revokeKey } from "./tenancy/api-keys.js";
import { type ConsoleSession, ConsoleSessions } from "./tenancy/console-sessions.js";

/** What a console cookie stands for (the API reads it through this port). */
export type { ConsoleSession };

import { KeyStreams } from "./tenancy/key-streams.js";
import { listTenants } from "./tenancy/list-tenants.js";
import type { Principal } from "./tenancy/principal.js";
import { getTenantSettings, putTenantSettings } from "./tenancy/tenant-settings.js";
import { createTenant } from "./tenancy/tenants.js";
import { listExternalTools, putExternalTools } from "./tool-config/external-tools.js";
import { createMcpServer, deleteMcpServer, getMcpServer } from "./tool-config/mcp-servers.js";
import { getTenantRules, putTenantRules } from "./tool-config/rules.js";
import { deleteSkill, listSkills, uploadSkill } from "./tool-config/skills.js";
import { listToolGroups, putToolGroups } from "./tool-config/tool-groups.js";
import { listDeliveries } from "./webhooks/delivery-log.js";
import { deleteWebhook, getWebhook, putWebhook } from "./webhooks/webhook-config.js";

/** Types the session MCP endpoint needs besides the verbs. */
export type { AskApproval, OnProgress } from "./sessions/session-mcp-verbs.js";
export type { KeyStreams } from "./tenancy/key-streams.js";

/** The verbs the API calls as they are: each is bound to the service's dependencies. */
const VERBS = {
  authenticate,
  createTenant,
  listTenants,
  createKey,
  listKeys,
  getTenantRules,
  putTenantRules,
  dryRunRules,
  getTenantSettings,
  putTenantSettings,
  listExternalTools,
  listToolGroups,
  putToolGroups,
  uploadSkill,
  listSkills,
  deleteSkill,
  createSession,
  getSession,
  listSessions,
  updateSession,
  deleteSession,
  listSessionTools,
  submitCall,
  dryRunDecision,
  getJob,
  listJobs,
  listApprovals,
  waitForJob,
  cancelJob,
  expireIfDue,
  answerApproval,
  postExternalResult,
  followJobEvents,
  followApprovals,
  policyCheck,
  listAudit,
  uploadFile,
  downloadFile,
  exportWorkspace,
  importWorkspace,
};

/** A service verb without its first (dependencies) parameter. */
// biome-ignore lint/suspicious/noExplicitAny: matches any dependency shape; only the rest is kept
type Bound<F> = F extends (deps: any, ...args: infer A) => infer R ? (...args: A) => R : never;
type BoundAll<T> = { [K in keyof T]: Bound<T[K]> };

export interface ApiPort extends BoundAll<typeof VERBS> {
  /** Also ends the streams (SSE, MCP sessions) the key opened. */
  revokeKey: Bound<typeof revokeKey>;
  /** Checks names against the built-in tools. */
  putExternalTools: Bound<typeof putExternalTools>;
  /** Absent where MCP is not configured (the routes are then not served). */
  mcpServers?: McpServerVerbs;
  /** Absent where webhooks are not configured (the routes are then not served). */
  webhooks?: WebhookVerbs;
  /** What the session's MCP endpoint (`mcp-server/session-server.ts`) calls. */
  sessionMcp: SessionMcpVerbs;
  /** Long-lived streams by key, so that revoking a key ends them. */
  keyStreams: KeyStreams;
  /** The web console's sign-in: admin keys exchanged for signed session cookies. */
  consoleSessions: ConsoleSessions;
  metrics: Metrics;
  readiness: Readiness;
  /** The largest file transfer body (the routes' own body limit). */
  transferMaxBytes: number;
}

const MCP_READS = { get: getMcpServer };
const MCP_WRITES = { create: createMcpServer, delete: deleteMcpServer };

export interface McpServerVerbs extends BoundAll<typeof MCP_READS>, BoundAll<typeof MCP_WRITES> {
  /** With each server's health (HTTP servers due for a listing are listed first). */
  list: Bound<typeof listMcpServersWithHealth>;
  listTools: Bound<typeof listMcpServerTools>;
}

const WEBHOOK_READS = { get: getWebhook, delete: deleteWebhook, deliveries: listDeliveries };

export interface WebhookVerbs extends BoundAll<typeof WEBHOOK_READS> {
  put: Bound<typeof putWebhook>;
}

export interface SessionMcpVerbs {
  /** Throws unless `sid` is an active session the caller may use. */
  checkSession: (p: Principal, sid: string) => Promise<void>;
  listTools: (p: Principal, sid: string) => ReturnType<typeof listSessionMcpTools>;
  callTool: (
    p: Principal,
    sid: string,
    call: Parameters<typeof callSessionTool>[3],
  ) => ReturnType<typeof callSessionTool>;
}

function bindAll<D, T extends Record<string, (d: D, ...args: never[]) => unknown>>(
  deps: D,
  verbs: T,
): BoundAll<T> {
  const bound = Object.entries(verbs).map(([name, verb]) => [
    name,
    (...args: never[]) => verb(deps, ...args),
  ]);
  return Object.fromEntries(bound) as BoundAll<T>;
}

/**
 * `keyStreams` is the composition root's (it closes them); tests may leave it to the default.
 * `consoleKey` signs console sessions; give every API process the same one (a per-process random key otherwise).
 */
export function createApiPort(
  deps: ServiceDeps,
  keyStreams = new KeyStreams(deps.db),
  opts: { consoleKey?: Buffer; mcpProgressEveryMs?: number } = {},
): ApiPort {
  const mcpCalls = { mcp: deps.mcp, progressEveryMs: opts.mcpProgressEveryMs };
  const builtinNames = deps.tools.list().map((t) => t.name);
  return {
    ...bindAll(deps, VERBS),
    revokeKey: async (p, keyId) => {
      await revokeKey(deps, p, keyId);
      keyStreams.revoked(keyId);
    },
    putExternalTools: (...args) => putExternalTools({ ...deps, builtinNames }, ...args),
    ...(deps.mcp ? { mcpServers: mcpServerVerbs(deps, deps.mcp) } : {}),
    ...(deps.webhooks ? { webhooks: webhookVerbs(deps, deps.webhooks) } : {}),
    sessionMcp: {
      checkSession: async (p, sid) => void (await loadSession(deps.db, p, sid)),
      listTools: (p, sid) => listSessionMcpTools(deps, p, sid, { mcp: deps.mcp }),
      callTool: (p, sid, call) => callSessionTool(deps, p, sid, call, mcpCalls),
    },
    keyStreams,
    consoleSessions: new ConsoleSessions(deps.db, opts.consoleKey ?? randomBytes(32)),
    metrics: deps.metrics,
    readiness: deps.readiness,
    transferMaxBytes: deps.transfers.maxBytes,
  };
}

function mcpServerVerbs(deps: ServiceDeps, mcp: NonNullable<ServiceDeps["mcp"]>): McpServerVerbs {
  // Writes drop the cached client of that server, so its next listing reconnects.
  const writer = {
    db: deps.db,
    secrets: mcp.secrets,
    egress: mcp.egress,
    onChange: (tid: string, name: string) => mcp.clients.invalidate(tid, name),
  };
  return {
    ...bindAll(deps, MCP_READS),
    ...bindAll(writer, MCP_WRITES),
    list: (...args) => listMcpServersWithHealth({ db: deps.db, mcp }, ...args),
    listTools: (...args) => listMcpServerTools({ db: deps.db, mcp }, ...args),
  };
}

function webhookVerbs(deps: ServiceDeps, webhooks: NonNullable<ServiceDeps["webhooks"]>): WebhookVerbs {
  return {
    ...bindAll(deps, WEBHOOK_READS),
    put: (...args) => putWebhook({ db: deps.db, webhooks }, ...args),
  };
}
