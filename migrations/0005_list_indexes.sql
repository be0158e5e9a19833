CREATE INDEX `jobs_tenant_created_idx` ON `jobs` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `jobs_tenant_status_created_idx` ON `jobs` (`tenant_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `sessions_tenant_created_idx` ON `sessions` (`tenant_id`,`created_at`,`id`);