/** The webhook events a tenant may subscribe to, declared once for the service and the API. */

export const WEBHOOK_EVENTS = [
  "job.awaiting_approval",
  "job.awaiting_external",
  "job.finished",
  "approval.expired",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
