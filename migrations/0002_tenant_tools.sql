CREATE TABLE `external_tools` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`tools` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `mcp_servers` (
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`transport` text NOT NULL,
	`url` text,
	`secrets_enc` text,
	`command` text,
	`args` text,
	`stateful` integer DEFAULT false NOT NULL,
	`enable_tools` text,
	`disable_tools` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `name`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `session_tasks` (
	`session_id` text PRIMARY KEY NOT NULL,
	`data` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `skills` (
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`markdown` text NOT NULL,
	`file_count` integer NOT NULL,
	`size_bytes` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `name`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `tenant_settings` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`allow_bypass` integer DEFAULT false NOT NULL,
	`agents_may_approve` integer DEFAULT false NOT NULL,
	`approval_ttl_seconds` integer DEFAULT 3600 NOT NULL,
	`quotas` text DEFAULT '{}' NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `tool_groups` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`groups` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `jobs` ADD `approval_expires_at` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `approved_by` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `tool_groups` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `skills` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `active_groups` text DEFAULT '[]' NOT NULL;