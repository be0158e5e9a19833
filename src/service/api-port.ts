/**
 * The verbs the HTTP API may call, already bound to the service's dependencies: routes see this
 * port, never the bag (database, queue, sandboxes, caches), so what the API can reach is listed here.
 */
import { SessionMcpEndpoint } from "../mcp/session-server.js";
import { answerApproval } from "./approval.js";
import { expireIfDue } from "./approval-expiry.js";
import { listAudit } from "./audit.js";
import { dryRunDecision } from "./decide.js";
import type { ServiceDeps } from "./deps.js";
import { postExternalResult } from "./external-result.js";
import { listExternalTools, putExternalTools } from "./external-tools.js";
import { followJobEvents } from "./job-events.js";
import { cancelJob, getJob, waitForJob } from "./jobs.js";
import { KeyStreams } from "./key-streams.js";
import { authenticate, createKey, listKeys, revokeKey } from "./keys.js";
import { listMcpServerTools } from "./mcp-clients.js";
import { createMcpServer, deleteMcpServer, getMcpServer, listMcpServers } from "./mcp-servers.js";
import type { Metrics } from "./metrics.js";
import { policyCheck } from "./policy-check.js";
import type { Readiness } from "./readiness.js";
import { getTenantRules, putTenantRules } from "./rules.js";
import { listSessionTools } from "./session-tools.js";
import { createSession, deleteSession, getSession, updateSession } from "./sessions.js";
import { deleteSkill, listSkills, uploadSkill } from "./skills.js";
import { submitCall } from "./submit-call.js";
import { getTenantSettings, putTenantSettings } from "./tenant-settings.js";
import { createTenant } from "./tenants.js";
import { listToolGroups, putToolGroups } from "./tool-groups.js";

/** A service verb without its first (dependencies) parameter. */
// biome-ignore lint/suspicious/noExplicitAny: matches any dependency shape; only the rest is kept
type Bound<F> = F extends (deps: any, ...args: infer A) => infer R ? (...args: A) => R : never;

export interface ApiPort {
  authenticate: Bound<typeof authenticate>;
  createTenant: Bound<typeof createTenant>;
  createKey: Bound<typeof createKey>;
  listKeys: Bound<typeof listKeys>;
  /** Also ends the streams (SSE, MCP sessions) the key opened. */
  revokeKey: Bound<typeof revokeKey>;
  getTenantRules: Bound<typeof getTenantRules>;
  putTenantRules: Bound<typeof putTenantRules>;
  getTenantSettings: Bound<typeof getTenantSettings>;
  putTenantSettings: Bound<typeof putTenantSettings>;
  listExternalTools: Bound<typeof listExternalTools>;
  putExternalTools: Bound<typeof putExternalTools>;
  listToolGroups: Bound<typeof listToolGroups>;
  putToolGroups: Bound<typeof putToolGroups>;
  uploadSkill: Bound<typeof uploadSkill>;
  listSkills: Bound<typeof listSkills>;
  deleteSkill: Bound<typeof deleteSkill>;
  createSession: Bound<typeof createSession>;
  getSession: Bound<typeof getSession>;
  updateSession: Bound<typeof updateSession>;
  deleteSession: Bound<typeof deleteSession>;
  listSessionTools: Bound<typeof listSessionTools>;
  submitCall: Bound<typeof submitCall>;
  dryRunDecision: Bound<typeof dryRunDecision>;
  getJob: Bound<typeof getJob>;
  waitForJob: Bound<typeof waitForJob>;
  cancelJob: Bound<typeof cancelJob>;
  expireIfDue: Bound<typeof expireIfDue>;
  answerApproval: Bound<typeof answerApproval>;
  postExternalResult: Bound<typeof postExternalResult>;
  followJobEvents: Bound<typeof followJobEvents>;
  policyCheck: Bound<typeof policyCheck>;
  listAudit: Bound<typeof listAudit>;
  /** Absent where MCP is not configured (the routes are then not served). */
  mcpServers?: McpServerVerbs;
  /** The session as an MCP server; its stateful sessions live in this process. */
  sessionMcp: SessionMcpEndpoint;
  /** Long-lived streams by key, so that revoking a key ends them. */
  keyStreams: KeyStreams;
  metrics: Metrics;
  readiness: Readiness;
}

export interface McpServerVerbs {
  create: Bound<typeof createMcpServer>;
  list: Bound<typeof listMcpServers>;
  get: Bound<typeof getMcpServer>;
  delete: Bound<typeof deleteMcpServer>;
  listTools: Bound<typeof listMcpServerTools>;
}

export function createApiPort(deps: ServiceDeps): ApiPort {
  const bind =
    <A extends unknown[], R>(verb: (d: ServiceDeps, ...args: A) => R) =>
    (...args: A): R =>
      verb(deps, ...args);
  const keyStreams = new KeyStreams(deps.db);
  const builtinNames = deps.tools.list().map((t) => t.name);
  return {
    authenticate: bind(authenticate),
    createTenant: bind(createTenant),
    createKey: bind(createKey),
    listKeys: bind(listKeys),
    revokeKey: (p, keyId) => {
      revokeKey(deps, p, keyId);
      keyStreams.revoked(keyId);
    },
    getTenantRules: bind(getTenantRules),
    putTenantRules: bind(putTenantRules),
    getTenantSettings: bind(getTenantSettings),
    putTenantSettings: bind(putTenantSettings),
    listExternalTools: bind(listExternalTools),
    putExternalTools: (...args) => putExternalTools({ ...deps, builtinNames }, ...args),
    listToolGroups: bind(listToolGroups),
    putToolGroups: bind(putToolGroups),
    uploadSkill: bind(uploadSkill),
    listSkills: bind(listSkills),
    deleteSkill: bind(deleteSkill),
    createSession: bind(createSession),
    getSession: bind(getSession),
    updateSession: bind(updateSession),
    deleteSession: bind(deleteSession),
    listSessionTools: bind(listSessionTools),
    submitCall: bind(submitCall),
    dryRunDecision: bind(dryRunDecision),
    getJob: bind(getJob),
    waitForJob: bind(waitForJob),
    cancelJob: bind(cancelJob),
    expireIfDue: bind(expireIfDue),
    answerApproval: bind(answerApproval),
    postExternalResult: bind(postExternalResult),
    followJobEvents: bind(followJobEvents),
    policyCheck: bind(policyCheck),
    listAudit: bind(listAudit),
    ...(deps.mcp ? { mcpServers: mcpServerVerbs(deps, deps.mcp) } : {}),
    sessionMcp: new SessionMcpEndpoint(deps, { mcp: deps.mcp, keyStreams }),
    keyStreams,
    metrics: deps.metrics,
    readiness: deps.readiness,
  };
}

function mcpServerVerbs(deps: ServiceDeps, mcp: NonNullable<ServiceDeps["mcp"]>): McpServerVerbs {
  // Writes drop the cached client of that server, so its next listing reconnects.
  const svc = {
    db: deps.db,
    secrets: mcp.secrets,
    egress: mcp.egress,
    onChange: (tid: string, name: string) => mcp.clients.invalidate(tid, name),
  };
  return {
    create: (...args) => createMcpServer(svc, ...args),
    list: (...args) => listMcpServers(deps, ...args),
    get: (...args) => getMcpServer(deps, ...args),
    delete: (...args) => deleteMcpServer(svc, ...args),
    listTools: (...args) => listMcpServerTools({ db: deps.db, mcp }, ...args),
  };
}
