/**
 * The Postgres twin of ../schema-webhooks.ts. Tenants' webhooks and their delivery log. The signing secret is sealed (AES-256-GCM, see
 * service/secret-box.ts), never stored or returned in clear; a delivery row is written once per
 * (job, event), so a status published twice does not notify twice.
 */
import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { WebhookDeliveryStatus } from "../schema-webhooks.js";
import { tenants } from "./schema-core.js";

export const webhooks = pgTable("webhooks", {
  tenantId: text("tenant_id")
    .primaryKey()
    .references(() => tenants.id),
  url: text("url").notNull(),
  events: jsonb("events").$type<string[]>().notNull(),
  secretEnc: text("secret_enc").notNull(),
  /** The secret a rotation replaced, still signing beside the new one until `previousSecretUntil`. */
  previousSecretEnc: text("previous_secret_enc"),
  previousSecretUntil: text("previous_secret_until"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    event: text("event").notNull(),
    /** The job the event is about (with `event`, the once-only key). */
    jobId: text("job_id").notNull(),
    /** The exact JSON body sent (and signed) on every attempt. */
    body: text("body").notNull(),
    url: text("url").notNull(),
    status: text("status").$type<WebhookDeliveryStatus>().notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    responseCode: integer("response_code"),
    createdAt: text("created_at").notNull(),
    lastAttemptAt: text("last_attempt_at"),
    deliveredAt: text("delivered_at"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_once_idx").on(t.jobId, t.event),
    index("webhook_deliveries_tenant_idx").on(t.tenantId, t.createdAt, t.id),
    index("webhook_deliveries_status_idx").on(t.status),
  ],
);
