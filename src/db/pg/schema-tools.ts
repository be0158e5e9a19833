/** The Postgres twin of ../schema-tools.ts (tenant configuration and session tasks). */
import { boolean, customType, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import type { ExternalToolDef, StoredSandboxSettings, TenantQuotas, ToolGroupDef } from "../schema-tools.js";
import { sessions, tenants } from "./schema-core.js";

/** Binary content; node-postgres reads `bytea` as a Buffer. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

export const tenantSettings = pgTable("tenant_settings", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  allowBypass: boolean("allow_bypass").notNull().default(false),
  agentsMayApprove: boolean("agents_may_approve").notNull().default(false),
  approvalTtlSeconds: integer("approval_ttl_seconds").notNull().default(3600),
  quotas: jsonb("quotas").$type<TenantQuotas>().notNull().default({}),
  /** The tenant's sandbox image, limits and environment (sealed; see tenancy/sandbox-settings.ts). */
  sandbox: jsonb("sandbox").$type<StoredSandboxSettings>().notNull().default({}),
  /** Where sessions may set working directories; null: the default (tenant-settings.ts). */
  workingDirectoryRoots: jsonb("working_directory_roots").$type<string[]>(),
  updatedAt: text("updated_at").notNull(),
});

export const externalTools = pgTable("external_tools", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  tools: jsonb("tools").$type<ExternalToolDef[]>().notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const toolGroups = pgTable("tool_groups", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  groups: jsonb("groups").$type<ToolGroupDef[]>().notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const skills = pgTable(
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

export const skillArchives = pgTable(
  "skill_archives",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    sha256: text("sha256").notNull(),
    archive: bytea("archive").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.name] })],
);

export const mcpServers = pgTable(
  "mcp_servers",
  {
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    transport: text("transport").$type<"http" | "stdio">().notNull(),
    url: text("url"),
    secretsEnc: text("secrets_enc"),
    command: text("command"),
    args: jsonb("args").$type<string[]>(),
    /** stdio: where the server starts, `/workspace` or below; null: its private home. */
    cwd: text("cwd"),
    stateful: boolean("stateful").notNull().default(false),
    enableTools: jsonb("enable_tools").$type<string[]>(),
    disableTools: jsonb("disable_tools").$type<string[]>(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.name] })],
);

export const sessionTasks = pgTable("session_tasks", {
  sessionId: text("session_id")
    .primaryKey()
    .references(() => sessions.id),
  data: jsonb("data").$type<{ tasks: unknown[]; lastId: number }>().notNull(),
  updatedAt: text("updated_at").notNull(),
});
