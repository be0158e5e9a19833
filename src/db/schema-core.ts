/**
 * The tables every other table hangs off (tenants and their sessions), apart so that the tool
 * tables (schema-tools.ts) can reference them without an import cycle through schema.ts.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { RuleStrings } from "../contracts/tenant.js";
import type { PermissionMode } from "../permission/types.js";

export type { RuleStrings } from "../contracts/tenant.js";

export const tenants = sqliteTable("tenants", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: text("created_at").notNull(),
});

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    mode: text("mode").$type<PermissionMode>().notNull(),
    cwd: text("cwd").notNull(),
    home: text("home").notNull(),
    workingDirectories: text("working_directories", { mode: "json" }).$type<string[]>().notNull(),
    rules: text("rules", { mode: "json" }).$type<RuleStrings>().notNull(),
    /** The basic built-ins this session offers; null means all of them. */
    tools: text("tools", { mode: "json" }).$type<string[]>(),
    /** Tool groups named at creation; null means none. */
    toolGroups: text("tool_groups", { mode: "json" }).$type<string[]>(),
    /** The basic skills; null means all of the tenant's. */
    skills: text("skills", { mode: "json" }).$type<string[]>(),
    /** The non-basic groups active now (reset_tools overwrites it). */
    activeGroups: text("active_groups", { mode: "json" }).$type<string[]>().notNull().default([]),
    status: text("status").$type<"active" | "deleted">().notNull(),
    /** The next queue position: a job gets its `seq` when it enters the queue. */
    nextSeq: integer("next_seq").notNull().default(1),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at").notNull(),
  },
  (t) => [
    index("sessions_tenant_idx").on(t.tenantId, t.status),
    // The session list, newest first.
    index("sessions_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
  ],
);
