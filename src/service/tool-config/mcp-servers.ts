/**
 * A tenant's MCP servers (`/v1/tenants/{tid}/mcp-servers`): stored with their secrets (HTTP
 * headers, stdio env) sealed by the SecretBox; views say `hasHeaders` / `hasEnv`, never the values.
 */

import { and, eq } from "drizzle-orm";
import type { McpServerInput, McpServerView } from "../../contracts/tool-config.js";
import type { Db } from "../../db/open.js";
import { mcpServers } from "../../db/schema.js";
import { AppError, ConflictError, NotFoundError, ValidationError } from "../../errors.js";
import { EgressPolicy, refusalMessage } from "../../net/egress-policy.js";
import { assertMcpServerConfig, type McpServerConfig } from "../../toolkit/mcp/config.js";
import { nowIso } from "../clock.js";
import type { SecretBox } from "../secret-box.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { loadTenant } from "../tenancy/tenants.js";
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

type Row = typeof mcpServers.$inferSelect;
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
    // stdio must be stateful: the process is the session.
    stateful: input.transport === "stdio" ? true : (input.stateful ?? false),
    enableTools: input.enableTools ?? null,
    disableTools: input.disableTools ?? null,
    createdAt: nowIso(),
  };
  deps.db.transaction((tx) => {
    const existing = tx
      .select({ name: mcpServers.name })
      .from(mcpServers)
      .where(eq(mcpServers.tenantId, tenantId))
      .all();
    if (existing.some((r) => r.name === input.name)) {
      throw new ConflictError(`an MCP server named ${input.name} already exists`);
    }
    if (existing.length >= MAX_MCP_SERVERS) {
      throw new ConflictError(`a tenant may have at most ${MAX_MCP_SERVERS} MCP servers`);
    }
    tx.insert(mcpServers).values(row).run();
  });
  invalidateTenantConfig(deps.db, tenantId);
  deps.onChange?.(tenantId, input.name);
  return toView(row);
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

export async function listMcpServers(
  deps: { db: Db },
  p: Principal,
  tenantId: string,
): Promise<McpServerView[]> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  return rows(deps.db, tenantId).map(toView);
}

export async function getMcpServer(
  deps: { db: Db },
  p: Principal,
  tenantId: string,
  name: string,
): Promise<McpServerView> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  return toView(loadRow(deps.db, tenantId, name));
}

export async function deleteMcpServer(
  deps: Deps,
  p: Principal,
  tenantId: string,
  name: string,
): Promise<void> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  loadRow(deps.db, tenantId, name);
  deps.db
    .delete(mcpServers)
    .where(and(eq(mcpServers.tenantId, tenantId), eq(mcpServers.name, name)))
    .run();
  invalidateTenantConfig(deps.db, tenantId);
  deps.onChange?.(tenantId, name);
}

/** The tenant's servers with their secrets opened; no role check (the runtime's read). */
export function loadMcpServerConfigs(
  deps: { db: Db; secrets: SecretBox },
  tenantId: string,
): StoredMcpServer[] {
  return rows(deps.db, tenantId).map((row) => {
    const secrets = row.secretsEnc
      ? deps.secrets.open<Secrets>(row.secretsEnc, secretContext(tenantId, row.name))
      : {};
    const common = {
      name: row.name,
      enableTools: row.enableTools,
      disableTools: row.disableTools,
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
            args: row.args ?? [],
            env: secrets.env,
          };
    return { config, version: row.createdAt };
  });
}

function rows(db: Db, tenantId: string): Row[] {
  return db.select().from(mcpServers).where(eq(mcpServers.tenantId, tenantId)).orderBy(mcpServers.name).all();
}

function loadRow(db: Db, tenantId: string, name: string): Row {
  const row = db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.tenantId, tenantId), eq(mcpServers.name, name)))
    .get();
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
    stateful: row.stateful,
    enableTools: row.enableTools,
    disableTools: row.disableTools,
    hasHeaders: row.transport === "http" && row.secretsEnc !== null,
    hasEnv: row.transport === "stdio" && row.secretsEnc !== null,
    createdAt: row.createdAt,
  };
}
