PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_audit` (
	`id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`session_id` text,
	`job_id` text,
	`kind` text NOT NULL,
	`actor_key_id` text,
	`data` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `created_at`, `id`)
);
--> statement-breakpoint
INSERT INTO `__new_audit`("id", "tenant_id", "session_id", "job_id", "kind", "actor_key_id", "data", "created_at") SELECT "id", "tenant_id", "session_id", "job_id", "kind", "actor_key_id", "data", "created_at" FROM `audit`;--> statement-breakpoint
DROP TABLE `audit`;--> statement-breakpoint
ALTER TABLE `__new_audit` RENAME TO `audit`;--> statement-breakpoint
PRAGMA foreign_keys=ON;