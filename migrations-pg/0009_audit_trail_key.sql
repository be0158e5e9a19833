DROP INDEX "audit_tenant_idx";--> statement-breakpoint
ALTER TABLE "audit" DROP CONSTRAINT "audit_pkey";--> statement-breakpoint
ALTER TABLE "audit" ADD CONSTRAINT "audit_tenant_id_created_at_id_pk" PRIMARY KEY("tenant_id","created_at","id");
