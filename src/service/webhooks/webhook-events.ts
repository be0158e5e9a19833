/** The webhook events a tenant may subscribe to, and the secret's sealing context. */

/** The events a tenant may subscribe to. */
export const WEBHOOK_EVENTS = [
  "job.awaiting_approval",
  "job.awaiting_external",
  "job.finished",
  "approval.expired",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Binds a sealed secret to its tenant, so a ciphertext copied to another row does not open. */
export const webhookSecretContext = (tenantId: string) => `webhook:${tenantId}`;
