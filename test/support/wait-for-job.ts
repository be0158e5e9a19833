/**
 * The one way tests wait: `pollUntil` reads something until a condition holds, and `waitForJob` /
 * `waitForJobs` read jobs through the API (`GET /v1/jobs/:id`) until they reach a status.
 * A wait that runs out throws with the last reading, so a stuck job fails the test that waited.
 */
import { TERMINAL } from "../../src/contracts/job.js";
import type { Client } from "./harness.js";

/** Statuses a job never leaves (the contract's). */
export const FINAL_STATUSES: readonly string[] = TERMINAL;

/** The parts of the API's job view that tests read; the rest is there too. */
export interface JobView {
  id: string;
  status: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on JSON bodies freely
  [field: string]: any;
}

export interface PollOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** What is awaited, for the error when the wait runs out. */
  what?: string;
}

/** Reads `read()` until `done` holds for the reading; that reading. Throws after `timeoutMs`. */
export async function pollUntil<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 90_000, intervalMs = 100, what = "the condition" }: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() >= deadline) {
      const last = JSON.stringify(value).slice(0, 2000);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${last}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The job as its owner reads it through the API. */
export async function readJob(call: Client, key: string, jobId: string): Promise<JobView> {
  const res = await call("GET", `/v1/jobs/${jobId}`, { key });
  if (res.status !== 200) throw new Error(`GET /v1/jobs/${jobId}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.job;
}

export interface WaitOptions extends PollOptions {
  /** The statuses that end the wait; any final status by default. */
  until?: readonly string[];
}

/** Reads the job until its status is one of `until` (default: final); the job view. */
export function waitForJob(
  call: Client,
  key: string,
  jobId: string,
  opts: WaitOptions = {},
): Promise<JobView> {
  const until: readonly string[] = opts.until ?? FINAL_STATUSES;
  return pollUntil(
    () => readJob(call, key, jobId),
    (job) => until.includes(job.status),
    { what: `job ${jobId} to be ${until.join("|")}`, ...opts },
  );
}

/**
 * Reads all the jobs until `done` holds for the set (default: every one final); the views, in
 * the order of `jobIds`.
 */
export function waitForJobs(
  call: Client,
  key: string,
  jobIds: readonly string[],
  done: (jobs: JobView[]) => boolean = (jobs) => jobs.every((j) => isFinal(j.status)),
  opts: PollOptions = {},
): Promise<JobView[]> {
  return pollUntil(() => Promise.all(jobIds.map((id) => readJob(call, key, id))), done, {
    what: `${jobIds.length} jobs`,
    ...opts,
  });
}

export const isFinal = (status: string) => FINAL_STATUSES.includes(status);

/** How many of `jobs` have `status`. */
export const countStatus = (jobs: readonly JobView[], status: string) =>
  jobs.filter((j) => j.status === status).length;
