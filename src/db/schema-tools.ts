/**
 * Tenant configuration beyond rules (settings, external tools, tool groups, skills, MCP
 * servers) and per-session tool state (tasks). Split from schema.ts to keep files small.
 */
import { blob, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { TenantQuotas } from "../contracts/tenant.js";
import type { ExternalToolDef, ToolGroupDef } from "../contracts/tool-config.js";
import { sessions, tenants } from "./schema-core.js";

export type { TenantQuotas } from "../contracts/tenant.js";
export type { ExternalToolDef, ToolGroupDef } from "../contracts/tool-config.js";

/** A tenant's sandbox settings as stored: the environment sealed whole, its names beside it. */
export interface StoredSandboxSettings {
  image?: string;
  memoryMb?: number;
  cpus?: number;
  pids?: number;
  diskMb?: number;
  envNames?: string[];
  /** SecretBox-sealed `Record<string, string>`. */
  envSealed?: string;
}

/** Per-tenant switches and limits; a missing row means the defaults. */
export const tenantSettings = sqliteTable("tenant_settings", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  /** Whether this tenant's sessions may use `bypass` mode (off by default). */
  allowBypass: integer("allow_bypass", { mode: "boolean" }).notNull().default(false),
  /** Whether agent keys may approve or deny their own tenant's calls. */
  agentsMayApprove: integer("agents_may_approve", { mode: "boolean" }).notNull().default(false),
  /** A pending approval is denied after this many seconds. */
  approvalTtlSeconds: integer("approval_ttl_seconds").notNull().default(3600),
  quotas: text("quotas", { mode: "json" }).$type<TenantQuotas>().notNull().default({}),
  /** The tenant's sandbox image, limits and environment (sealed; see tenancy/sandbox-settings.ts). */
  sandbox: text("sandbox", { mode: "json" }).$type<StoredSandboxSettings>().notNull().default({}),
  /** Where sessions may set working directories; null: the default (tenant-settings.ts). */
  workingDirectoryRoots: text("working_directory_roots", { mode: "json" }).$type<string[]>(),
  updatedAt: text("updated_at").notNull(),
});

/** The tenant's external tools, replaced as a whole by PUT. */
export const externalTools = sqliteTable("external_tools", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  tools: text("tools", { mode: "json" }).$type<ExternalToolDef[]>().notNull(),
  updatedAt: text("updated_at").notNull(),
});

/** The tenant's tool groups, replaced as a whole by PUT. */
export const toolGroups = sqliteTable("tool_groups", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  groups: text("groups", { mode: "json" }).$type<ToolGroupDef[]>().notNull(),
  updatedAt: text("updated_at").notNull(),
});

/** A tenant's skill; its files are in `skill_archives` (every host's worker reads them there). */
export const skills = sqliteTable(
  "skills",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    description: text("description").notNull(),
    markdown: text("markdown").notNull(),
    fileCount: integer("file_count").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.name] })],
);

/**
 * A skill's files as one archive (service/tool-config/skill-archive.ts), apart from `skills` so
 * that listing skills never reads them. `sha256` (of the archive) names the skill's directory in
 * each worker's host-local cache. Rows without one (skills uploaded before files moved into the
 * database) are left out of the tenant's toolkit until re-uploaded.
 */
export const skillArchives = sqliteTable(
  "skill_archives",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    sha256: text("sha256").notNull(),
    archive: blob("archive", { mode: "buffer" }).$type<Buffer>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.name] })],
);

/** A tenant's MCP server; secrets (headers, env) are stored encrypted, never returned. */
export const mcpServers = sqliteTable(
  "mcp_servers",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    transport: text("transport").$type<"http" | "stdio">().notNull(),
    url: text("url"),
    /** AES-GCM ciphertext of the JSON headers/env object (see the service's secret box). */
    secretsEnc: text("secrets_enc"),
    command: text("command"),
    args: text("args", { mode: "json" }).$type<string[]>(),
    /** stdio: where the server starts, `/workspace` or below; null: its private home. */
    cwd: text("cwd"),
    stateful: integer("stateful", { mode: "boolean" }).notNull().default(false),
    enableTools: text("enable_tools", { mode: "json" }).$type<string[]>(),
    disableTools: text("disable_tools", { mode: "json" }).$type<string[]>(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.name] })],
);

/** A session's task list: `{tasks, lastId}` so that ids are never reused. */
export const sessionTasks = sqliteTable("session_tasks", {
  sessionId: text("session_id")
    .primaryKey()
    .references(() => sessions.id),
  data: text("data", { mode: "json" }).$type<{ tasks: unknown[]; lastId: number }>().notNull(),
  updatedAt: text("updated_at").notNull(),
});
