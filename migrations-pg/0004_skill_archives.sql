CREATE TABLE "skill_archives" (
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"sha256" text NOT NULL,
	"archive" "bytea" NOT NULL,
	CONSTRAINT "skill_archives_tenant_id_name_pk" PRIMARY KEY("tenant_id","name")
);
--> statement-breakpoint
ALTER TABLE "skill_archives" ADD CONSTRAINT "skill_archives_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;