import { expect } from "vitest";
import type { Client } from "./harness.js";

/** The parts of a job a test reads. */
export interface JobLike {
  status: string;
  result?: { content: { text?: string }[] };
}

/** The text blocks of a job's result, joined. */
export const jobText = (job: JobLike) => (job.result?.content ?? []).map((b) => b.text ?? "").join("");

/** Runs one tool call in a session and waits (up to `wait` s) for its job. */
export async function runTool(
  call: Client,
  key: string,
  sid: string,
  tool: string,
  input: Record<string, unknown>,
  wait = 60,
): Promise<JobLike> {
  const res = await call("POST", `/v1/sessions/${sid}/calls?wait=${wait}`, { key, body: { tool, input } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.job;
}
