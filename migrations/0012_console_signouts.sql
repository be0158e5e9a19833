CREATE TABLE `console_signouts` (
	`nonce` text PRIMARY KEY NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `console_signouts_expires_idx` ON `console_signouts` (`expires_at`);