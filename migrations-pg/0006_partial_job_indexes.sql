DROP INDEX "jobs_session_seq_idx";--> statement-breakpoint
DROP INDEX "jobs_session_status_seq_idx";--> statement-breakpoint
DROP INDEX "jobs_status_idx";--> statement-breakpoint
CREATE INDEX "jobs_active_idx" ON "jobs" USING btree ("status","session_id","seq") WHERE "jobs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "jobs_approval_expiry_idx" ON "jobs" USING btree ("approval_expires_at") WHERE "jobs"."status" = 'awaiting_approval';