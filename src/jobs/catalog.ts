/**
 * The typed job catalog: job name → payload schema. Payloads carry ids only (rows are the
 * truth). The queue adds only catalogued jobs, and the worker checks every job it takes against
 * the catalog, so a job of an unknown name or with a bad payload fails at once, saying why.
 */
import { z } from "zod";

export const RunCall = z.object({ jobId: z.string().startsWith("job_") });
export type RunCall = z.infer<typeof RunCall>;

/** The payload of the `webhooks` queue (its own worker, `webhook-queue.ts`; not the calls worker's). */
export const DeliverWebhook = z.object({ deliveryId: z.string().startsWith("whd_") });
export type DeliverWebhook = z.infer<typeof DeliverWebhook>;

export const JOB_CATALOG = { "run-call": RunCall } as const;
export type JobName = keyof typeof JOB_CATALOG;
export type JobPayload<N extends JobName> = z.infer<(typeof JOB_CATALOG)[N]>;

/** The one queue that tool calls go through (per service prefix). */
export const CALLS_QUEUE = "calls";

/** Webhook deliveries: apart from the calls, so a slow receiver never delays a tool call. */
export const WEBHOOKS_QUEUE = "webhooks";

/** A queued job that is not in the catalog or whose payload does not match its schema. */
export class BadJobPayloadError extends Error {
  override readonly name = "BadJobPayloadError";
}

/** The payload of a job named `name`, checked against the catalog. */
export function parseJobPayload<N extends JobName>(name: N, data: unknown): JobPayload<N>;
export function parseJobPayload(name: string, data: unknown): JobPayload<JobName>;
export function parseJobPayload(name: string, data: unknown): JobPayload<JobName> {
  if (!Object.hasOwn(JOB_CATALOG, name)) {
    const known = Object.keys(JOB_CATALOG).join(", ");
    throw new BadJobPayloadError(`unknown job name "${name}" (this worker runs: ${known})`);
  }
  const parsed = JOB_CATALOG[name as JobName].safeParse(data);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(payload)"}: ${i.message}`);
  throw new BadJobPayloadError(`bad payload for job "${name}": ${problems.join("; ")}`);
}
