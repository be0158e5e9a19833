/**
 * `npm run bench -- fairness [nA=500] [nB=10] [concurrency=4] [sessionsA=10]`: tenant A floods with
 * nA cheap calls (Read of a 3-byte file, over sessionsA sessions), then tenant B submits nB (over 5
 * sessions). Reads are concurrency-safe, so per-session ordering holds none of them back: the
 * backlog is the queue's alone.
 * Prints B's queue wait (claim time − submit time, from the job rows) on an idle system, under
 * A's flood with fair priorities (the service as built), and under the same flood with plain
 * FIFO (priorities dropped in this process only), next to A's drain time. Sessions are warmed
 * first so that container starts are not measured; everything it creates is removed at the end.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "../src/cli/compose.js";
import type { JobQueue } from "../src/service/ports.js";
import { benchConfig, jsonClient, tearDown } from "./support.js";

const ADMIN = `bench-admin-${randomBytes(8).toString("hex")}`;

interface JobRow {
  id: string;
  status: string;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
const waits = (jobs: JobRow[]) =>
  jobs.map((j) => Date.parse(j.startedAt ?? j.finishedAt!) - Date.parse(j.createdAt));
const fmt = (xs: number[]) =>
  `p50 ${pct(xs, 0.5).toFixed(0).padStart(5)} ms  p95 ${pct(xs, 0.95).toFixed(0).padStart(5)} ms  max ${Math.max(
    ...xs,
  )
    .toFixed(0)
    .padStart(5)} ms`;

async function pool<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
    }),
  );
  return out;
}

export async function run(args: string[]): Promise<void> {
  const nA = Number(args[0] ?? 500);
  const nB = Number(args[1] ?? 10);
  const concurrency = String(args[2] ?? 4);
  const sessionsA = Number(args[3] ?? 10);
  const dataDir = mkdtempSync(join(tmpdir(), "tsf-"));
  const config = benchConfig(dataDir, ADMIN, {
    WORKER_CONCURRENCY: concurrency,
    TENANT_CALLS_PER_MINUTE: "100000",
  });
  const service = await startService(config, "serve");
  const base = service.url!;
  const req = jsonClient(base);
  const tenant = async (name: string, sessions: number) => {
    const t = await req("POST", "/v1/tenants", ADMIN, { name });
    const key = (await req("POST", `/v1/tenants/${t.id}/keys`, ADMIN, { role: "agent" })).key as string;
    await req("PUT", `/v1/tenants/${t.id}/rules`, ADMIN, { allow: ["Bash", "Read"], deny: [], ask: [] });
    const sids: string[] = [];
    for (let i = 0; i < sessions; i++) sids.push((await req("POST", "/v1/sessions", key, {})).id);
    return { key, sids };
  };
  const call = async (t: { key: string; sids: string[] }, i: number, wait: number, body: object) =>
    (await req("POST", `/v1/sessions/${t.sids[i % t.sids.length]}/calls?wait=${wait}`, t.key, body))
      .job as JobRow;
  const submit = (t: { key: string; sids: string[] }, i: number, wait: number) =>
    call(t, i, wait, { tool: "Read", input: { file_path: "/workspace/f" } });
  const warm = (t: { key: string; sids: string[] }, i: number) =>
    call(t, i, 60, { tool: "Bash", input: { command: "echo ok > /workspace/f" } });
  const finish = (t: { key: string }, jobs: JobRow[]) =>
    pool(jobs, 32, async (j) => {
      for (;;) {
        const { job } = await req("GET", `/v1/jobs/${j.id}`, t.key);
        if (!["queued", "running"].includes(job.status)) return job as JobRow;
        await new Promise((r) => setTimeout(r, 100));
      }
    });

  // One phase: A floods, B then submits and waits; returns B's waits and A's drain time.
  const flood = async (a: { key: string; sids: string[] }, b: { key: string; sids: string[] }) => {
    const t0 = performance.now();
    const aJobs = await pool(
      Array.from({ length: nA }, (_, i) => i),
      64,
      (i) => submit(a, i, 0),
    );
    const submitted = performance.now() - t0;
    const bJobs = await Promise.all(Array.from({ length: nB }, (_, i) => submit(b, i, 60)));
    const aDone = await finish(a, aJobs);
    const drained =
      Math.max(...aDone.map((j) => Date.parse(j.finishedAt!))) - Date.parse(aDone[0]!.createdAt);
    const failed = [...aDone, ...bJobs].filter((j) => j.status !== "succeeded").length;
    return { b: waits(bJobs), a: waits(aDone), submitted, drained, failed };
  };

  try {
    const a = await tenant("flood", sessionsA);
    const b = await tenant("quiet", 5);
    await Promise.all([...a.sids.map((_, i) => warm(a, i)), ...b.sids.map((_, i) => warm(b, i))]);

    const quiet = async () =>
      waits(await Promise.all(Array.from({ length: nB }, (_, i) => submit(b, i, 60))));
    const idle = await quiet();
    // FIFO first (the same queue without priorities), so that any warm-up favours it, not us.
    const queue = service.deps.queue as JobQueue;
    const enqueue = queue.enqueue.bind(queue);
    queue.enqueue = (jobId) => enqueue(jobId);
    const fifo = await flood(a, b);
    queue.enqueue = enqueue;
    const fair = await flood(a, b);
    const idleAfter = await quiet(); // again, once every session has served many calls

    console.log(
      `worker concurrency ${concurrency}; A: ${nA} × Read over ${sessionsA} sessions; B: ${nB} × Read over 5 sessions`,
    );
    console.log(`B queue wait, idle system (before)   ${fmt(idle)}`);
    console.log(`B queue wait, idle system (after)    ${fmt(idleAfter)}`);
    console.log(`B queue wait, after A's flood (fair) ${fmt(fair.b)}`);
    console.log(`B queue wait, after A's flood (FIFO) ${fmt(fifo.b)}`);
    console.log(`A queue wait (fair)                  ${fmt(fair.a)}`);
    console.log(
      `A: ${nA} submitted in ${fair.submitted.toFixed(0)} ms, drained in ${fair.drained} ms (fair) / ${fifo.drained} ms (FIFO)`,
    );
    console.log(
      `B p95 (fair) / B p95 idle (after) = ${(pct(fair.b, 0.95) / Math.max(1, pct(idleAfter, 0.95))).toFixed(1)}; failed calls: ${fair.failed + fifo.failed}`,
    );
  } finally {
    await tearDown(service, config, dataDir);
  }
}
