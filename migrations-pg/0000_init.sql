CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text,
	"role" text NOT NULL,
	"name" text,
	"hash" text NOT NULL,
	"created_at" text NOT NULL,
	"revoked_at" text
);
--> statement-breakpoint
CREATE TABLE "audit" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"session_id" text,
	"job_id" text,
	"kind" text NOT NULL,
	"actor_key_id" text,
	"data" jsonb NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"session_id" text NOT NULL,
	"tool" text NOT NULL,
	"input" jsonb NOT NULL,
	"status" text NOT NULL,
	"decision" jsonb NOT NULL,
	"result" jsonb,
	"idempotency_key" text,
	"request_hash" text,
	"seq" integer,
	"concurrency_safe" boolean NOT NULL,
	"cancel_requested" boolean DEFAULT false NOT NULL,
	"runs" integer DEFAULT 0 NOT NULL,
	"attempts" jsonb,
	"error" text,
	"approval_expires_at" text,
	"approved_by" text,
	"created_at" text NOT NULL,
	"started_at" text,
	"finished_at" text
);
--> statement-breakpoint
CREATE TABLE "read_cache" (
	"session_id" text NOT NULL,
	"file_path" text NOT NULL,
	"lines" jsonb NOT NULL,
	"mtime_ms" double precision NOT NULL,
	"content_hash" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "read_cache_session_id_file_path_pk" PRIMARY KEY("session_id","file_path")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"mode" text NOT NULL,
	"cwd" text NOT NULL,
	"home" text NOT NULL,
	"working_directories" jsonb NOT NULL,
	"rules" jsonb NOT NULL,
	"tools" jsonb,
	"tool_groups" jsonb,
	"skills" jsonb,
	"active_groups" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text NOT NULL,
	"next_seq" integer DEFAULT 1 NOT NULL,
	"created_at" text NOT NULL,
	"last_used_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tenant_rules" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"rules" jsonb NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "external_tools" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"tools" jsonb NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_servers" (
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"transport" text NOT NULL,
	"url" text,
	"secrets_enc" text,
	"command" text,
	"args" jsonb,
	"stateful" boolean DEFAULT false NOT NULL,
	"enable_tools" jsonb,
	"disable_tools" jsonb,
	"created_at" text NOT NULL,
	CONSTRAINT "mcp_servers_tenant_id_name_pk" PRIMARY KEY("tenant_id","name")
);
--> statement-breakpoint
CREATE TABLE "session_tasks" (
	"session_id" text PRIMARY KEY NOT NULL,
	"data" jsonb NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skills" (
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"markdown" text NOT NULL,
	"file_count" integer NOT NULL,
	"size_bytes" integer NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "skills_tenant_id_name_pk" PRIMARY KEY("tenant_id","name")
);
--> statement-breakpoint
CREATE TABLE "tenant_settings" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"allow_bypass" boolean DEFAULT false NOT NULL,
	"agents_may_approve" boolean DEFAULT false NOT NULL,
	"approval_ttl_seconds" integer DEFAULT 3600 NOT NULL,
	"quotas" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tool_groups" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"groups" jsonb NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_rules" ADD CONSTRAINT "tenant_rules_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_tools" ADD CONSTRAINT "external_tools_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD CONSTRAINT "mcp_servers_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_tasks" ADD CONSTRAINT "session_tasks_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skills" ADD CONSTRAINT "skills_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_settings" ADD CONSTRAINT "tenant_settings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_groups" ADD CONSTRAINT "tool_groups_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_idx" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "audit_tenant_idx" ON "audit" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_session_idem_idx" ON "jobs" USING btree ("session_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "jobs_session_seq_idx" ON "jobs" USING btree ("session_id","seq");--> statement-breakpoint
CREATE INDEX "jobs_status_idx" ON "jobs" USING btree ("status");--> statement-breakpoint
CREATE INDEX "sessions_tenant_idx" ON "sessions" USING btree ("tenant_id","status");