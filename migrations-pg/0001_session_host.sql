ALTER TABLE "jobs" ADD COLUMN "host_id" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "host_id" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "workspace_lost" boolean DEFAULT false NOT NULL;