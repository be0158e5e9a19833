ALTER TABLE `jobs` ADD `host_id` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `host_id` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `workspace_lost` integer DEFAULT false NOT NULL;