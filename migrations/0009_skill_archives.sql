CREATE TABLE `skill_archives` (
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`sha256` text NOT NULL,
	`archive` blob NOT NULL,
	PRIMARY KEY(`tenant_id`, `name`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
