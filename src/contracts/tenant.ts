/**
 * A tenant's rule set and quotas, declared once: the API's bodies (OpenAPI `RuleSet`,
 * `TenantQuotas`), the DB's JSON columns and the service's types.
 */
import { z } from "zod";

/** The string form of a rule set as stored and served (`tenant_rules.rules`, `sessions.rules`). */
export const RuleStrings = z
  .object({ allow: z.array(z.string()), deny: z.array(z.string()), ask: z.array(z.string()) })
  .meta({ id: "RuleSet" });
export type RuleStrings = z.infer<typeof RuleStrings>;

const limit = (max: number) => z.number().int().min(1).max(max);

/** Per-tenant limits; an absent one is the platform default. */
export const TenantQuotas = z
  .strictObject({
    maxSessions: limit(1_000_000).optional(),
    /** Queued + running calls at once. */
    maxActiveCalls: limit(1_000_000).optional(),
    callsPerMinute: limit(10_000_000).optional(),
  })
  .meta({ id: "TenantQuotas", description: "absent limits fall back to the platform defaults" });
export type TenantQuotas = z.infer<typeof TenantQuotas>;

/** A tenant's sandbox settings as served; null: the platform's default. */
export const TenantSandboxSettings = z
  .object({
    image: z.string().nullable(),
    memoryMb: z.number().nullable(),
    cpus: z.number().nullable(),
    pids: z.number().nullable(),
    diskMb: z.number().nullable(),
    env: z.array(z.string()).meta({ description: "names only: values are never returned" }),
  })
  .meta({ id: "TenantSandboxSettings", description: "null: the platform's default" });
export type TenantSandboxSettings = z.infer<typeof TenantSandboxSettings>;

/** A change of sandbox settings: a field left out keeps its value; null returns to the default. */
export const TenantSandboxPatch = z
  .strictObject({
    image: z.string().min(1).max(300).nullable().optional(),
    memoryMb: z.number().int().min(64).nullable().optional(),
    cpus: z.number().min(0.01).nullable().optional(),
    pids: z.number().int().min(16).nullable().optional(),
    diskMb: z.number().int().min(8).nullable().optional(),
    env: z
      .record(z.string(), z.string().max(16 * 1024))
      .optional()
      .meta({ description: "replaces the whole set; stored encrypted", example: { API_BASE: "https://x" } }),
  })
  .meta({
    id: "TenantSandboxSettingsPatch",
    description:
      "The tenant's sandboxes from new sessions on: an image from the platform's allowlist " +
      "(SANDBOX_IMAGE_ALLOWLIST), limits up to the platform's caps (SANDBOX_MAX_*; over a cap is a 400 " +
      "naming the field), and environment variables for every command. A field left out keeps its value; " +
      "null returns to the platform's default.",
  });
export type TenantSandboxPatch = z.infer<typeof TenantSandboxPatch>;

/** A tenant's switches and limits as served (`GET /v1/tenants/{tid}/settings`). */
export const TenantSettingsView = z
  .object({
    allowBypass: z.boolean(),
    agentsMayApprove: z.boolean(),
    approvalTtlSeconds: z.number().int(),
    // Only the limits set for this tenant; absent ones fall back to the platform's.
    quotas: TenantQuotas,
    sandbox: TenantSandboxSettings,
    workingDirectoryRoots: z.array(z.string()).meta({
      description: "where a session's working directories may be (each one of these or below one)",
    }),
  })
  .meta({ id: "TenantSettings" });
export type TenantSettingsView = z.infer<typeof TenantSettingsView>;

/** A change of settings: fields left out keep their value. */
export const TenantSettingsPatch = z
  .strictObject({
    allowBypass: z.boolean().optional(),
    agentsMayApprove: z.boolean().optional(),
    approvalTtlSeconds: z
      .number()
      .int()
      .min(10)
      .max(7 * 24 * 3600)
      .optional(),
    quotas: TenantQuotas.optional(),
    sandbox: TenantSandboxPatch.optional(),
    workingDirectoryRoots: z
      .array(
        z
          .string()
          .min(1)
          .max(4096)
          .refine(
            (d) => d.startsWith("/") && !d.includes("\0"),
            "must be an absolute path (starting with /)",
          ),
      )
      .max(32)
      .nullable()
      .optional()
      .meta({
        description:
          "Where the tenant's sessions may set working directories (accept_edits auto-allows writes inside " +
          "them): each working directory must be one of these or below one. null returns to the default " +
          "(/workspace and /tmp). A root containing the home lets agents auto-allow writes to its configuration.",
        example: ["/workspace", "/tmp", "/data"],
      }),
  })
  .meta({ id: "TenantSettingsPatch" });
export type TenantSettingsPatch = z.infer<typeof TenantSettingsPatch>;

export const TenantView = z.object({ id: z.string(), name: z.string() }).meta({ id: "Tenant" });
export type TenantView = z.infer<typeof TenantView>;

/** Who a key acts as: the platform's admin (no tenant), a tenant's admin, or one of its agents. */
export const KeyRole = z.enum(["admin", "tenant_admin", "agent"]);
export type KeyRole = z.infer<typeof KeyRole>;

/** A key as listed: never its secret or hash; revoked keys stay listed, marked. */
export const KeyView = z
  .object({
    id: z.string(),
    role: KeyRole,
    name: z.string().nullable(),
    createdAt: z.string(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: "Key" });
export type KeyView = z.infer<typeof KeyView>;
