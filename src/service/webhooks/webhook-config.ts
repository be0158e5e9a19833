/**
 * A tenant's webhook (`/v1/tenants/{tid}/webhooks`): one URL and the events it wants. The signing
 * secret is generated (and shown in that answer only) or set by the admin; it is stored sealed and
 * never returned afterwards. The URL passes the egress policy now, and again at each delivery.
 */
import { eq, sql } from "drizzle-orm";
import { WEBHOOK_EVENTS, type WebhookEvent } from "../../contracts/webhook.js";
import { type Db, first, tablesOf } from "../../db/db.js";
import type { WebhookRow } from "../../db/rows.js";
import { AppError, NotFoundError } from "../../errors.js";
import { refusalMessage } from "../../net/egress-policy.js";
import { nowIso } from "../clock.js";
import type { WebhookRuntime } from "../ports.js";
import { type Principal, requireRole } from "../tenancy/principal.js";
import { loadTenant } from "../tenancy/tenants.js";
import { tenantReadCache } from "../tenant-read-cache.js";
import { newWebhookSecret } from "./signature.js";
import { webhookSecretContext } from "./webhook-events.js";

export interface WebhookInput {
  url: string;
  /** Default: every event. */
  events?: WebhookEvent[];
  /** Set by the admin; when absent a new one is generated for a new webhook (or on `rotateSecret`). */
  secret?: string;
  rotateSecret?: boolean;
  /**
   * When this PUT sets or generates a secret: how long the one it replaces keeps signing beside
   * it, so receivers can switch at leisure. 0 ends it now (a leaked secret).
   */
  keepPreviousSecretSeconds?: number;
}

/** The previous secret's overlap when a change of secret does not say (a day). */
export const DEFAULT_SECRET_OVERLAP_S = 86_400;

export interface WebhookView {
  url: string;
  events: string[];
  createdAt: string;
  updatedAt: string;
  /** Until when the secret a rotation replaced still signs deliveries too (null: none does). */
  previousSecretExpiresAt: string | null;
  /** Only in the answer that generated it. */
  secret?: string;
}

type Deps = { db: Db; webhooks: Pick<WebhookRuntime, "secrets" | "egress"> };

export async function putWebhook(
  deps: Deps,
  p: Principal,
  tenantId: string,
  input: WebhookInput,
): Promise<WebhookView> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const refusal = deps.webhooks.egress.checkHost(new URL(input.url).hostname);
  if (refusal) {
    const message = refusalMessage(refusal);
    throw new AppError("EGRESS_REFUSED", message, [{ path: "url", message }]);
  }
  const existing = await findWebhook(deps.db, tenantId);
  const generated =
    input.secret === undefined && (!existing || input.rotateSecret) ? newWebhookSecret() : undefined;
  const secret = input.secret ?? generated;
  const now = nowIso();
  const overlapS = input.keepPreviousSecretSeconds ?? DEFAULT_SECRET_OVERLAP_S;
  // A change of secret on an existing webhook: until when the replaced one still signs.
  const previousUntil =
    existing && secret !== undefined && overlapS > 0
      ? new Date(Date.now() + overlapS * 1000).toISOString()
      : null;
  const row: WebhookRow = {
    tenantId,
    url: input.url,
    events: [...new Set(input.events ?? WEBHOOK_EVENTS)],
    secretEnc:
      secret === undefined
        ? (existing as WebhookRow).secretEnc
        : deps.webhooks.secrets.seal(secret, webhookSecretContext(tenantId)),
    // A new webhook has no previous secret; an existing one's is set by the update below.
    previousSecretEnc: null,
    previousSecretUntil: null,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  const { webhooks } = tablesOf(deps.db);
  // A save that keeps the secret leaves the stored ones as they are: a rotation written meanwhile
  // (after this save read the row) stays, and the secret its caller got keeps verifying. A change
  // of secret keeps the one stored at the write (not the one read: two rotations at once leave
  // the first's secret signing beside the second's).
  const {
    tenantId: _t,
    createdAt: _c,
    secretEnc,
    previousSecretEnc: _p,
    previousSecretUntil: _u,
    ...kept
  } = row;
  await deps.db
    .insert(webhooks)
    .values(row)
    .onConflictDoUpdate({
      target: webhooks.tenantId,
      set:
        secret === undefined
          ? kept
          : {
              ...kept,
              secretEnc,
              previousSecretEnc: previousUntil === null ? null : sql`${webhooks.secretEnc}`,
              previousSecretUntil: previousUntil,
            },
    });
  recordedHooks.invalidate(deps.db, tenantId);
  const previousSecretExpiresAt =
    secret === undefined ? (existing ? overlapEnd(existing) : null) : previousUntil;
  return { ...toView(row), previousSecretExpiresAt, ...(generated ? { secret: generated } : {}) };
}

export async function getWebhook(deps: { db: Db }, p: Principal, tenantId: string): Promise<WebhookView> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const row = await findWebhook(deps.db, tenantId);
  if (!row) throw new NotFoundError("webhook of tenant", tenantId);
  return toView(row);
}

export async function deleteWebhook(deps: { db: Db }, p: Principal, tenantId: string): Promise<void> {
  requireRole(p, ["tenant_admin"]);
  await loadTenant(deps, p, tenantId);
  const { webhooks } = tablesOf(deps.db);
  const gone = await deps.db
    .delete(webhooks)
    .where(eq(webhooks.tenantId, tenantId))
    .returning({ tenantId: webhooks.tenantId });
  recordedHooks.invalidate(deps.db, tenantId);
  if (gone.length === 0) throw new NotFoundError("webhook of tenant", tenantId);
}

/**
 * The webhook as each published job state looks it up (which events it wants), cached per
 * process: saved or removed here, the next event sees it; saved in another process (an API),
 * events published here (a worker) start within the cache's TTL. A delivery reads the row again
 * (findWebhook): a removed webhook gets no request, a rotated secret signs at once.
 */
const recordedHooks = tenantReadCache<WebhookRow | undefined>();

export function subscribedWebhook(db: Db, tenantId: string): Promise<WebhookRow | undefined> {
  return recordedHooks.get(db, tenantId, () => findWebhook(db, tenantId));
}

/** The tenant's webhook as stored now. */
export async function findWebhook(db: Db, tenantId: string): Promise<WebhookRow | undefined> {
  const { webhooks } = tablesOf(db);
  return first(db.select().from(webhooks).where(eq(webhooks.tenantId, tenantId)).limit(1));
}

function toView(row: WebhookRow): WebhookView {
  return {
    url: row.url,
    events: row.events,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    previousSecretExpiresAt: overlapEnd(row),
  };
}

/** Until when the secret a rotation replaced still signs, or null when none does now. */
function overlapEnd(row: WebhookRow): string | null {
  const until = row.previousSecretUntil;
  return row.previousSecretEnc !== null && until !== null && until > nowIso() ? until : null;
}

/** The secrets a delivery is signed with now: the current one, and the previous while it overlaps. */
export function signingSecrets(row: WebhookRow, open: (sealed: string) => string): string[] {
  const previous =
    row.previousSecretEnc !== null && overlapEnd(row) !== null ? [open(row.previousSecretEnc)] : [];
  return [open(row.secretEnc), ...previous];
}
