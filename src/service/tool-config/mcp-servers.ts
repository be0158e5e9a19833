/**
 * A tenant's MCP servers (`/v1/tenants/{tid}/mcp-servers`): stored with their secrets (HTTP
 * headers, stdio env) sealed by the SecretBox; views say `hasHeaders` / `hasEnv`, never the values.
 */

import { and, count, eq } from "drizzle-orm";
import { MCP_CWD, type McpServerInput, type McpServerView } from "../../contracts/tool-config.js";
import { type Db, first, type Tables, tablesOf } from "../../db/db.js";
import { AppError, ConflictError, NotFoundError, ValidationError } from "../../errors.js";
import { EgressPolicy, refusalMessage } from "../../net/egress-policy.js";
import { assertMcpServerConfig, type McpServerConfig } from "../../toolkit/mcp/config.js";
import { nowIso } from "../clock.js";
import type { SecretBox } from "../secret-box.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { ENV_NAME, isReservedForMcp } from "../tenancy/sandbox-settings.js";
import { loadTenant } from "../tenancy/tenants.js";
import { tenantReadCache } from "../tenant-read-cache.js";
import { invalidateTenantConfig } from "./tenant-config-cache.js";

/** Per-tenant bound: every server may be listed on each session's tool build. */
export const MAX_MCP_SERVERS = 50;

/** A stored server, decrypted, for the runtime; `version` changes when it is re-created. */
export interface StoredMcpServer {
  config: McpServerConfig;
  version: string;
}

interface Secrets {
  headers?: Record<string, string>;
  env?: Record<string, string>;
}

type Row = Tables["mcpServers"]["$inferSelect"];
type Deps = {
  db: Db;
  secrets: SecretBox;
  /** Defaults to the strict policy (no exceptions). */
  egress?: EgressPolicy;
  onChange?: (tenantId: string, name: string) => void;
};

/** Binds a ciphertext to its row, so it cannot be replayed into another tenant's server. */
const secretContext = (tenantId: string, name: string) => `mcp:${tenantId}:${name}`;

export async function createMcpServer(
  deps: Deps,
  p: Principal,
  tenantId: string,
  input: McpServerInput,
): Promise<McpServerView> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const config = toConfig(input);
  try {
    assertMcpServerConfig(config);
  } catch (err) {
    throw new ValidationError((err as Error).message, [{ path: "", message: (err as Error).message }]);
  }
  if (config.transport === "http") assertEgressAllowed(deps.egress ?? new EgressPolicy(), config.url);
  else assertStdioEnv(config.env ?? {});
  const secrets: Secrets = input.transport === "http" ? { headers: input.headers } : { env: input.env };
  const hasSecrets = Object.keys(secrets.headers ?? secrets.env ?? {}).length > 0;
  const row: Row = {
    tenantId,
    name: input.name,
    transport: input.transport,
    url: input.transport === "http" ? input.url : null,
    secretsEnc: hasSecrets ? deps.secrets.seal(secrets, secretContext(tenantId, input.name)) : null,
    command: input.transport === "stdio" ? input.command : null,
    args: input.transport === "stdio" ? (input.args ?? []) : null,
    cwd: input.transport === "stdio" ? (input.cwd ?? null) : null,
    // stdio must be stateful: the process is the session.
    stateful: input.transport === "stdio" ? true : (input.stateful ?? false),
    enableTools: input.enableTools ?? null,
    disableTools: input.disableTools ?? null,
    createdAt: nowIso(),
  };
  try {
    await insertWithinBound(deps.db, row);
  } finally {
    // Also when the bound refused it: a read between its insert and delete may have seen it.
    invalidateServers(deps.db, tenantId);
  }
  deps.onChange?.(tenantId, input.name);
  return toView(row);
}

/** A set stored before names were checked (round 12) never reaches a server with one it would not take now. */
const allowedEnv = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).filter(([name]) => ENV_NAME.test(name) && !isReservedForMcp(name)));

/** A 400 naming each variable that is no name, or one the server must not be given (a file it would run). */
function assertStdioEnv(env: Record<string, string>): void {
  const problems = Object.keys(env).flatMap((name) => {
    if (!ENV_NAME.test(name))
      return [{ path: `env.${name}`, message: `not a valid variable name (${ENV_NAME.source})` }];
    if (!isReservedForMcp(name)) return [];
    const message =
      "is set by the sandbox or would make the server run a file the agent can write; pass the program's options as args";
    return [{ path: `env.${name}`, message }];
  });
  if (problems.length > 0) throw new ValidationError("invalid MCP server env", problems);
}

/**
 * What the URL alone shows (an IP literal, a local or metadata name) is refused now; a name's
 * addresses are checked each time the host connects.
 */
function assertEgressAllowed(egress: EgressPolicy, url: string): void {
  const refusal = egress.checkHost(new URL(url).hostname);
  if (!refusal) return;
  const message = refusalMessage(refusal);
  throw new AppError("EGRESS_REFUSED", message, [{ path: "url", message }]);
}

/**
 * Inserts the row unless its name is taken or the tenant is at the bound, race-safe across
 * processes without a read-then-write transaction: the primary key refuses a second name, and
 * an insert that finds the tenant over the bound afterwards takes itself back (two racing at the
 * bound may both be refused, never both kept).
 */
async function insertWithinBound(db: Db, row: Row): Promise<void> {
  const { mcpServers } = tablesOf(db);
  const inserted = await db
    .insert(mcpServers)
    .values(row)
    .onConflictDoNothing()
    .returning({ name: mcpServers.name });
  if (inserted.length === 0) throw new ConflictError(`an MCP server named ${row.name} already exists`);
  const total = await first(
    db.select({ n: count() }).from(mcpServers).where(eq(mcpServers.tenantId, row.tenantId)),
  );
  if ((total?.n ?? 0) <= MAX_MCP_SERVERS) return;
  await db
    .delete(mcpServers)
    .where(
      and(
        eq(mcpServers.tenantId, row.tenantId),
        eq(mcpServers.name, row.name),
        eq(mcpServers.createdAt, row.createdAt),
      ),
    );
  throw new ConflictError(`a tenant may have at most ${MAX_MCP_SERVERS} MCP servers`);
}

export async function listMcpServers(
  deps: { db: Db },
  p: Principal,
  tenantId: string,
): Promise<McpServerView[]> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  return (await rows(deps.db, tenantId)).map(toView);
}

export async function getMcpServer(
  deps: { db: Db },
  p: Principal,
  tenantId: string,
  name: string,
): Promise<McpServerView> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  return toView(await loadRow(deps.db, tenantId, name));
}

export async function deleteMcpServer(
  deps: Deps,
  p: Principal,
  tenantId: string,
  name: string,
): Promise<void> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  await loadRow(deps.db, tenantId, name);
  const { mcpServers } = tablesOf(deps.db);
  await deps.db.delete(mcpServers).where(and(eq(mcpServers.tenantId, tenantId), eq(mcpServers.name, name)));
  invalidateServers(deps.db, tenantId);
  deps.onChange?.(tenantId, name);
}

/**
 * The rows every call's toolkit lists (submit and run), cached per process: another process's
 * change shows within the cache's TTL. Sealed as stored: secrets are opened per use.
 */
const runtimeRows = tenantReadCache<readonly Row[]>();

/** After a write of the tenant's servers: this process's caches of them read again. */
function invalidateServers(db: Db, tenantId: string): void {
  runtimeRows.invalidate(db, tenantId);
  invalidateTenantConfig(db, tenantId);
}

/**
 * The tenant's servers with their secrets opened; no role check (the runtime's read). Up to the
 * cache's TTL old when another process changed them (a removed server's tools stay listed there
 * that long, as its tool configuration does).
 */
export async function loadMcpServerConfigs(
  deps: { db: Db; secrets: SecretBox },
  tenantId: string,
): Promise<StoredMcpServer[]> {
  const stored = await runtimeRows.get(deps.db, tenantId, () => rows(deps.db, tenantId));
  return stored.map((row) => {
    const secrets = row.secretsEnc
      ? deps.secrets.open<Secrets>(row.secretsEnc, secretContext(tenantId, row.name))
      : {};
    // Copies of the row's lists: the cached row is shared by every call until it expires.
    const common = {
      name: row.name,
      enableTools: row.enableTools && [...row.enableTools],
      disableTools: row.disableTools && [...row.disableTools],
    };
    const config: McpServerConfig =
      row.transport === "http"
        ? {
            ...common,
            transport: "http",
            url: row.url ?? "",
            headers: secrets.headers,
            stateful: row.stateful,
          }
        : {
            ...common,
            transport: "stdio",
            command: row.command ?? "",
            args: [...(row.args ?? [])],
            env: secrets.env && allowedEnv(secrets.env),
            // Without one the executor starts it in its private home, never the agent's workspace.
            ...(row.cwd && MCP_CWD.test(row.cwd) ? { cwd: row.cwd } : {}),
          };
    return { config, version: row.createdAt };
  });
}

async function rows(db: Db, tenantId: string): Promise<Row[]> {
  const { mcpServers } = tablesOf(db);
  return db.select().from(mcpServers).where(eq(mcpServers.tenantId, tenantId)).orderBy(mcpServers.name);
}

async function loadRow(db: Db, tenantId: string, name: string): Promise<Row> {
  const { mcpServers } = tablesOf(db);
  const row = await first(
    db
      .select()
      .from(mcpServers)
      .where(and(eq(mcpServers.tenantId, tenantId), eq(mcpServers.name, name)))
      .limit(1),
  );
  if (!row) throw new NotFoundError("MCP server", name);
  return row;
}

function toConfig(input: McpServerInput): McpServerConfig {
  return input.transport === "http" ? { ...input, stateful: input.stateful ?? false } : { ...input };
}

function toView(row: Row): McpServerView {
  return {
    name: row.name,
    transport: row.transport,
    url: row.url,
    command: row.command,
    args: row.args,
    cwd: row.cwd,
    stateful: row.stateful,
    enableTools: row.enableTools,
    disableTools: row.disableTools,
    hasHeaders: row.transport === "http" && row.secretsEnc !== null,
    hasEnv: row.transport === "stdio" && row.secretsEnc !== null,
    createdAt: row.createdAt,
  };
}
