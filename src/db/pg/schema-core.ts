/** The Postgres twin of ../schema-core.ts: tenants and sessions, which the other tables reference. */
import { boolean, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import type { RuleStrings } from "../schema-core.js";

export const tenants = pgTable("tenants", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: text("created_at").notNull(),
});

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    mode: text("mode").notNull(),
    cwd: text("cwd").notNull(),
    home: text("home").notNull(),
    workingDirectories: jsonb("working_directories").$type<string[]>().notNull(),
    rules: jsonb("rules").$type<RuleStrings>().notNull(),
    tools: jsonb("tools").$type<string[]>(),
    toolGroups: jsonb("tool_groups").$type<string[]>(),
    skills: jsonb("skills").$type<string[]>(),
    activeGroups: jsonb("active_groups").$type<string[]>().notNull().default([]),
    status: text("status").$type<"active" | "deleted">().notNull(),
    nextSeq: integer("next_seq").notNull().default(1),
    /** Mirrors the SQLite migration 0005 of the hosts work (branch hosts12): the session's worker host. */
    hostId: text("host_id"),
    workspaceLost: boolean("workspace_lost").notNull().default(false),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at").notNull(),
  },
  (t) => [
    index("sessions_tenant_idx").on(t.tenantId, t.status),
    // The session list, newest first.
    index("sessions_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
  ],
);
