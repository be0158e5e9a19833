/** The typed job catalog: job name → payload schema. Payloads carry ids only (rows are the truth). */
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

export const JOB_CATALOG = {
  "run-call": RunCall,
  "list-tools": ListTools,
  "remove-sandbox": RemoveSandbox,
} as const;
export type JobName = keyof typeof JOB_CATALOG;
export type AnyPayload = RunCall | ListTools | RemoveSandbox;

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
