ALTER TABLE "webhooks" ADD COLUMN "previous_secret_enc" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "previous_secret_until" text;