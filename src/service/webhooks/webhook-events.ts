/** The webhook events (declared in src/contracts) and the secret's sealing context. */
export { WEBHOOK_EVENTS, type WebhookEvent } from "../../contracts/webhook.js";

/** Binds a sealed secret to its tenant, so a ciphertext copied to another row does not open. */
export const webhookSecretContext = (tenantId: string) => `webhook:${tenantId}`;
