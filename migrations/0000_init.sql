CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`role` text NOT NULL,
	`name` text,
	`hash` text NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_idx` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE TABLE `audit` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`session_id` text,
	`job_id` text,
	`kind` text NOT NULL,
	`actor_key_id` text,
	`data` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_tenant_idx` ON `audit` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`session_id` text NOT NULL,
	`tool` text NOT NULL,
	`input` text NOT NULL,
	`status` text NOT NULL,
	`decision` text NOT NULL,
	`result` text,
	`idempotency_key` text,
	`seq` integer,
	`concurrency_safe` integer NOT NULL,
	`cancel_requested` integer DEFAULT false NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_session_idem_idx` ON `jobs` (`session_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `jobs_session_seq_idx` ON `jobs` (`session_id`,`seq`);--> statement-breakpoint
CREATE INDEX `jobs_status_idx` ON `jobs` (`status`);--> statement-breakpoint
CREATE TABLE `read_cache` (
	`session_id` text NOT NULL,
	`file_path` text NOT NULL,
	`lines` text NOT NULL,
	`mtime_ms` real NOT NULL,
	`content_hash` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`session_id`, `file_path`)
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`mode` text NOT NULL,
	`cwd` text NOT NULL,
	`home` text NOT NULL,
	`working_directories` text NOT NULL,
	`rules` text NOT NULL,
	`status` text NOT NULL,
	`next_seq` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sessions_tenant_idx` ON `sessions` (`tenant_id`,`status`);--> statement-breakpoint
CREATE TABLE `tenant_rules` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`rules` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL
);
