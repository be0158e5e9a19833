/** The sealing context of a tenant's webhook secret (the events are in contracts/webhook.ts). */

/** Binds a sealed secret to its tenant, so a ciphertext copied to another row does not open. */
export const webhookSecretContext = (tenantId: string) => `webhook:${tenantId}`;
