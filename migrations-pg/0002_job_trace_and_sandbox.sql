ALTER TABLE "jobs" ADD COLUMN "trace_id" text;--> statement-breakpoint
ALTER TABLE "tenant_settings" ADD COLUMN "sandbox" jsonb DEFAULT '{}'::jsonb NOT NULL;