/** The typed job catalog: job name → payload schema. Payloads carry ids only (rows are the truth). */
import { z } from "zod";

export const RunCall = z.object({ jobId: z.string().startsWith("job_") });
export type RunCall = z.infer<typeof RunCall>;

export const DeliverWebhook = z.object({ deliveryId: z.string().startsWith("whd_") });
export type DeliverWebhook = z.infer<typeof DeliverWebhook>;

export const JOB_CATALOG = { "run-call": RunCall, "deliver-webhook": DeliverWebhook } as const;
export type JobName = keyof typeof JOB_CATALOG;

/** The one queue that tool calls go through (per service prefix). */
export const CALLS_QUEUE = "calls";

/** Webhook deliveries: apart from the calls, so a slow receiver never delays a tool call. */
export const WEBHOOKS_QUEUE = "webhooks";
