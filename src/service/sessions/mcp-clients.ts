/**
 * The runtime side of tenants' MCP servers: one `McpClient` per (tenant, server), kept while the
 * stored row is unchanged, and each server's tool listing cached with a TTL (invalidated on add
 * and remove). A server that fails to list gives an empty set (or its last good listing) and a
 * warning; the session's other tools are unaffected.
 */

import type { McpServerView } from "../../contracts/tool-config.js";
import type { Db } from "../../db/db.js";
import type { SessionRow } from "../../db/rows.js";
import { AppError, ValidationError } from "../../errors.js";
import type { Logger } from "../../log.js";
import { type EgressClient, egressClient } from "../../net/egress-fetch.js";
import { EgressPolicy, EgressRefusedError } from "../../net/egress-policy.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { McpClient, type McpClientOptions, type McpRawTool } from "../../toolkit/mcp/mcp-client.js";
import { type McpTool, mcpToolSet } from "../../toolkit/mcp/mcp-tool.js";
import type { McpToolSet } from "../../toolkit/tool-group.js";
import { SecretBox } from "../secret-box.js";
import type { Principal } from "../tenancy/principal.js";
import { getMcpServer, listMcpServers, loadMcpServerConfigs } from "../tool-config/mcp-servers.js";
import { acquireSessionSandbox, type SessionSandboxDeps } from "./acquire-sandbox.js";
import { sessionById } from "./session-row.js";

/**
 * How a server's last listing went, for its tenant admin: `ok`, `error` with the reason (the
 * message the model would see; never a header or env value), or `unknown` when not yet listed
 * here (a stdio server is listed only inside a session's sandbox).
 */
export interface McpHealth {
  state: "ok" | "error" | "unknown";
  error?: string;
  checkedAt?: string;
}

/** Cache and timeout settings; every field has a default. */
export interface McpClientsOptions extends McpClientOptions {
  /** How long a good listing is reused, default 60 s. */
  listingTtlMs?: number;
  /** How long a failed listing is remembered (so a hung server is not waited on per request), default 5 s. */
  failureTtlMs?: number;
  now?: () => number;
}

/**
 * Where stdio servers are listed: the session's sandbox, acquired only when needed (the worker
 * holding it), or `remote`, which asks that worker (an API process never starts a container).
 */
export interface ToolSetOptions {
  sandbox?: () => Promise<Sandbox>;
  remote?: (server: string) => Promise<McpRawTool[]>;
  /** Only this server (the admin's listing endpoint). */
  only?: string;
  /** Wait for a listing that is due even of a server whose last one failed (the admin's views). */
  fresh?: boolean;
}

interface Entry {
  version: string;
  client: McpClient;
  listing?: { tools: McpRawTool[]; at: number };
  failedAt?: number;
  failure?: unknown;
  /**
   * The listing in flight, by where it runs: a local one (in a sandbox this process holds) never
   * joins a remote one, because in `serve` the worker answering an API's remote listing is this
   * same process, and waiting on its own request would hold both until the RPC times out.
   */
  pending?: Promise<McpRawTool[] | null>;
  pendingRemote?: Promise<McpRawTool[] | null>;
}

/** What the clients need; `egress` defaults to the strict policy (no exceptions). */
export interface McpClientsDeps {
  db: Db;
  secrets: SecretBox;
  logger: Logger;
  egress?: EgressPolicy;
}

export class McpClients {
  private readonly entries = new Map<string, Entry>();
  private readonly sets = new WeakMap<McpRawTool[], McpToolSet>();
  private readonly ttlMs: number;
  private readonly failureTtlMs: number;
  private readonly now: () => number;
  private readonly http: EgressClient;

  constructor(
    private readonly deps: McpClientsDeps,
    private readonly opts: McpClientsOptions = {},
  ) {
    this.ttlMs = opts.listingTtlMs ?? 60_000;
    this.failureTtlMs = opts.failureTtlMs ?? 5_000;
    this.now = opts.now ?? Date.now;
    this.http = egressClient(deps.egress ?? new EgressPolicy());
  }

  /** The tenant's servers as toolkit MCP sets (filters applied), in name order. */
  async toolSets(tenantId: string, opts: ToolSetOptions = {}): Promise<McpToolSet[]> {
    const stored = await loadMcpServerConfigs(this.deps, tenantId);
    this.dropRemoved(tenantId, new Set(stored.map((s) => s.config.name)));
    const wanted = opts.only === undefined ? stored : stored.filter((s) => s.config.name === opts.only);
    return Promise.all(
      wanted.map(async ({ config, version }) => {
        const entry = this.entry(
          tenantId,
          config.name,
          version,
          () => new McpClient(config, { ...this.opts, fetch: this.http.fetch }),
        );
        const tools = await this.listing(tenantId, entry, opts);
        return this.builtSet(entry.client, tools);
      }),
    );
  }

  /**
   * The set built from a listing, kept while the listing is: building clones every schema, which
   * each call would otherwise do again (a listing belongs to one entry, hence to one client).
   */
  private builtSet(client: McpClient, tools: McpRawTool[]): McpToolSet {
    let set = this.sets.get(tools);
    if (!set) {
      set = mcpToolSet(client, tools);
      this.sets.set(tools, set);
    }
    return set;
  }

  /** One server's raw listing (cached like the sets'); a worker answering an API's `remote` listing. */
  async rawTools(tenantId: string, name: string, opts: ToolSetOptions): Promise<McpRawTool[]> {
    const stored = (await loadMcpServerConfigs(this.deps, tenantId)).find((s) => s.config.name === name);
    if (!stored) return [];
    const { config, version } = stored;
    const entry = this.entry(
      tenantId,
      name,
      version,
      () => new McpClient(config, { ...this.opts, fetch: this.http.fetch }),
    );
    return this.listing(tenantId, entry, opts);
  }

  /** Forgets a server's client and listing (all of the tenant's without a name). */
  invalidate(tenantId: string, name?: string): void {
    for (const [key, entry] of this.entries) {
      if (key === cacheKey(tenantId, name ?? "") || (name === undefined && key.startsWith(`${tenantId}\0`))) {
        this.entries.delete(key);
        void entry.client.close();
      }
    }
  }

  /** Why the server's last listing failed, while that failure is remembered. */
  lastFailure(tenantId: string, name: string): unknown {
    return this.entries.get(cacheKey(tenantId, name))?.failure;
  }

  /** The server's health as this process last saw it. */
  health(tenantId: string, name: string): McpHealth {
    const entry = this.entries.get(cacheKey(tenantId, name));
    if (entry?.failedAt !== undefined) {
      const error = entry.failure instanceof Error ? entry.failure.message : String(entry.failure);
      return { state: "error", error, checkedAt: new Date(entry.failedAt).toISOString() };
    }
    if (entry?.listing) return { state: "ok", checkedAt: new Date(entry.listing.at).toISOString() };
    return { state: "unknown" };
  }

  async close(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.allSettled(entries.map((e) => e.client.close()));
    this.http.close();
  }

  private entry(tenantId: string, name: string, version: string, make: () => McpClient): Entry {
    const key = cacheKey(tenantId, name);
    const found = this.entries.get(key);
    // Re-created elsewhere (another process): the row's version changed, so start over.
    if (found?.version === version) return found;
    if (found) void found.client.close();
    const entry: Entry = { version, client: make() };
    this.entries.set(key, entry);
    return entry;
  }

  private async listing(tenantId: string, entry: Entry, opts: ToolSetOptions): Promise<McpRawTool[]> {
    const now = this.now();
    if (entry.listing && now - entry.listing.at < this.ttlMs) return entry.listing.tools;
    if (entry.failedAt !== undefined && now - entry.failedAt < this.failureTtlMs)
      return entry.listing?.tools ?? [];
    const stdio = entry.client.config.transport === "stdio";
    if (stdio && !opts.sandbox && !opts.remote) return entry.listing?.tools ?? [];
    const remote = stdio && !opts.sandbox ? opts.remote : undefined;
    const slot = remote ? "pendingRemote" : "pending";
    entry[slot] ??= (async () => {
      try {
        const tools = remote
          ? await remote(entry.client.name)
          : await entry.client.listRawTools(stdio ? await opts.sandbox?.() : undefined);
        entry.listing = { tools, at: this.now() };
        entry.failedAt = undefined;
        entry.failure = undefined;
        return tools;
      } catch (err) {
        entry.failedAt = this.now();
        entry.failure = err;
        this.deps.logger.warn(
          { tenantId, server: entry.client.name, error: (err as Error).message },
          "MCP server listing failed",
        );
        return null;
      } finally {
        entry[slot] = undefined;
      }
    })();
    const pending = entry[slot];
    // A server whose last listing failed (a hung one) is asked again in the background: the calls
    // go on with what it had, rather than each waiting out the list timeout. The admin's listing waits.
    if (entry.failedAt !== undefined && !opts.fresh) return entry.listing?.tools ?? [];
    return (await pending) ?? entry.listing?.tools ?? [];
  }

  private dropRemoved(tenantId: string, names: Set<string>): void {
    for (const [key, entry] of this.entries) {
      if (key.startsWith(`${tenantId}\0`) && !names.has(entry.client.name)) {
        this.entries.delete(key);
        void entry.client.close();
      }
    }
  }
}

/** What the API and the worker share: the secret box, the egress policy and the clients. */
export interface McpRuntime {
  secrets: SecretBox;
  egress: EgressPolicy;
  clients: McpClients;
}

/**
 * Builds the runtime over the configured secret key (shared by every process), else over
 * `<dataDir>/secret.key`; close `clients` on shutdown.
 */
export function createMcpRuntime(
  deps: { db: Db; logger: Logger; dataDir: string; secretKey?: Buffer; egress: EgressPolicy },
  opts: McpClientsOptions = {},
): McpRuntime {
  const secrets = deps.secretKey ? SecretBox.fromKey(deps.secretKey) : SecretBox.fromDataDir(deps.dataDir);
  const { db, logger, egress } = deps;
  return { secrets, egress, clients: new McpClients({ db, logger, secrets, egress }, opts) };
}

/**
 * The tenant's servers, each with its health. HTTP servers whose listing is due are listed first
 * (within the list timeout, cached like the sessions' listings), so an unreachable one shows its
 * error here rather than only in the server log.
 */
export async function listMcpServersWithHealth(
  deps: { db: Db; mcp: McpRuntime },
  p: Principal,
  tenantId: string,
): Promise<(McpServerView & { health: McpHealth })[]> {
  const servers = await listMcpServers(deps, p, tenantId);
  await deps.mcp.clients.toolSets(tenantId, { fresh: true });
  return servers.map((s) => ({ ...s, health: deps.mcp.clients.health(tenantId, s.name) }));
}

/** One server's filtered tools as the model will see them, and its health (tenant admins; HTTP servers only). */
export async function listMcpServerTools(
  deps: { db: Db; mcp: McpRuntime },
  p: Principal,
  tenantId: string,
  name: string,
): Promise<{ tools: McpTool[]; health: McpHealth }> {
  const server = await getMcpServer(deps, p, tenantId, name);
  if (server.transport === "stdio") {
    throw new ValidationError("stdio MCP servers run inside a session's sandbox: see the session's tools", [
      { path: "name", message: "a stdio server is listed per session" },
    ]);
  }
  const [set] = await deps.mcp.clients.toolSets(tenantId, { only: name, fresh: true });
  const refused = egressRefusal(deps.mcp.clients.lastFailure(tenantId, name));
  if (refused)
    throw new AppError("EGRESS_REFUSED", refused.message, [{ path: "url", message: refused.message }]);
  return { tools: (set?.tools ?? []) as McpTool[], health: deps.mcp.clients.health(tenantId, name) };
}

/** The egress refusal somewhere in an error's cause chain (the SDK and McpClient wrap it). */
function egressRefusal(err: unknown): EgressRefusedError | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof EgressRefusedError) return e;
  }
  return null;
}

/** Asks the worker holding a session's sandbox for a stdio server's tools (see jobs/host-rpc.ts). */
export interface SessionHostRpc {
  listStdioTools(session: Pick<SessionRow, "id" | "tenantId">, server: string): Promise<McpRawTool[]>;
}

/**
 * The tenant's MCP tool sets for one session's toolkit (`sessionToolkit(deps, session, {mcps})`).
 * Stdio servers are listed inside that session's sandbox: by this process when it holds the
 * sandbox (`local`: the worker running a job, or any process without `hostRpc`), otherwise by
 * asking the session's worker.
 */
export function sessionMcpToolSets(
  mcp: McpRuntime | undefined,
  deps: SessionSandboxDeps & { hostRpc?: SessionHostRpc },
  session: Pick<SessionRow, "id" | "tenantId">,
  opts: { local?: boolean } = {},
): Promise<McpToolSet[]> {
  if (!mcp) return Promise.resolve([]);
  const { hostRpc } = deps;
  if (hostRpc && !opts.local)
    return mcp.clients.toolSets(session.tenantId, {
      remote: (server) => hostRpc.listStdioTools(session, server),
    });
  return mcp.clients.toolSets(session.tenantId, { sandbox: () => acquireSessionSandbox(deps, session) });
}

/**
 * The worker's half of a remote listing: one stdio server's raw tools, listed in the session's
 * sandbox (none for a session that is gone).
 */
export async function stdioServerTools(
  mcp: McpRuntime | undefined,
  deps: SessionSandboxDeps,
  sessionId: string,
  server: string,
): Promise<McpRawTool[]> {
  if (!mcp) return [];
  const session = await sessionById(deps.db, sessionId);
  if (!session) return [];
  return mcp.clients.rawTools(session.tenantId, server, {
    sandbox: () => acquireSessionSandbox(deps, session),
  });
}

function cacheKey(tenantId: string, name: string): string {
  return `${tenantId}\0${name}`;
}
