/**
 * The typed job catalog: job name → payload schema. Payloads carry ids only (rows are the
 * truth). The queue adds only catalogued jobs, and the worker checks every job it takes against
 * the catalog, so a job of an unknown name or with a bad payload fails at once, saying why.
 */
import { z } from "zod";

export const RunCall = z.object({ jobId: z.string().startsWith("job_") });
export type RunCall = z.infer<typeof RunCall>;

/** An API asks the session's worker for a stdio MCP server's tools; the answer goes to `replyTo` (a Redis list). */
export const ListTools = z.object({
  sessionId: z.string().startsWith("ses_"),
  server: z.string(),
  replyTo: z.string(),
});
export type ListTools = z.infer<typeof ListTools>;

/** A deleted session's container and workspace, removed by the worker that holds them. */
export const RemoveSandbox = z.object({ sessionId: z.string().startsWith("ses_") });
export type RemoveSandbox = z.infer<typeof RemoveSandbox>;

/** The payload of the `webhooks` queue (its own worker, `webhook-queue.ts`; not the calls worker's). */
export const DeliverWebhook = z.object({ deliveryId: z.string().startsWith("whd_") });
export type DeliverWebhook = z.infer<typeof DeliverWebhook>;

export const JOB_CATALOG = {
  "run-call": RunCall,
  "list-tools": ListTools,
  "remove-sandbox": RemoveSandbox,
} as const;
export type JobName = keyof typeof JOB_CATALOG;
export type JobPayload<N extends JobName> = z.infer<(typeof JOB_CATALOG)[N]>;
export type AnyPayload = JobPayload<JobName>;

/** The single calls queue of a deployment without hosts (tests, and the queue before placement). */
export const CALLS_QUEUE = "calls";
/** Work for a session no live host holds yet: any worker with room pulls it and pins the session. */
export const PLACEMENT_QUEUE = "placement";

/** A host's own queue: the calls (and listings) of the sessions pinned to it. */
export function hostQueueName(hostId: string): string {
  return `calls-${hostId}`;
}

/** BullMQ's key prefix in a Redis hash tag, so that every key of a queue lands in one Redis Cluster slot. */
export function bullPrefix(prefix: string): string {
  return prefix.includes("{") ? prefix : `{${prefix}}`;
}

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
