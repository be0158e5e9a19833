/**
 * `npm run bench -- prune [n=200] [--backlog N] [--kib K] [--rounds R] [--batch B]`: a warm call's latency
 * over HTTP (Read and Bash, `?wait`) while retention prunes a backlog, next to the same calls
 * with the pruner idle, in turns (idle, pruning, idle, pruning, … R rounds) on one service and
 * one backlog (each pruning turn's pass is stopped at the turn's end; the next goes on). The
 * backlog is N finished jobs 60 days old (default 20,000) whose results hold K KiB (default 32):
 * what a busy month leaves. Also prints each turn's event-loop delay (a SQLite batch holds the
 * loop: its cost to every request shows there) and the pass's pace. SQLite only.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { startService } from "../src/cli/compose.js";
import { atomically, tablesOf } from "../src/db/db.js";
import { prunePass, retentionSettings } from "../src/service/retention/pruner.js";
import { jobRow } from "../test/support/rows.js";
import { fmt, summarize, type Timing } from "./sandbox-latency.js";
import { benchConfig, benchTenant, jsonClient, tearDown } from "./support.js";

const ADMIN = `bench-admin-${randomBytes(8).toString("hex")}`;

export async function run(args: string[]): Promise<void> {
  const valued = (name: string, def: number) => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args[at + 1]) : def;
  };
  const n = Number(args.find((a) => /^\d+$/.test(a)) ?? 200);
  const backlog = valued("--backlog", 20_000);
  const kib = valued("--kib", 32);
  const rounds = valued("--rounds", 2);
  const dataDir = mkdtempSync(join(tmpdir(), "tsb-"));
  // The service's own pruner stays idle (an interval of a day): the bench runs its passes.
  const config = benchConfig(dataDir, ADMIN, {
    PRUNE_INTERVAL_MS: "86400000",
    ...(args.includes("--batch") ? { PRUNE_BATCH: String(valued("--batch", 50)) } : {}),
  });
  const service = await startService(config, "serve");
  const req = jsonClient(service.url!);
  const db = service.deps.db;
  try {
    const { tenantId, agent, newSession } = await benchTenant(req, ADMIN, ["Read", "Bash"]);
    const sid = await newSession();
    const call = async (tool: string, input: object) => {
      const { job } = await req("POST", `/v1/sessions/${sid}/calls?wait=60`, agent, { tool, input });
      if (job.status !== "succeeded") throw new Error(`${tool} ended ${job.status}`);
    };
    const file = "/workspace/bench-4k";
    await call("Bash", { command: `head -c 4096 /dev/zero | tr '\\0' x > ${file}` });
    for (let i = 0; i < 50; i++) await call("Read", { file_path: file });

    const old = new Date(Date.now() - 60 * 86_400_000).toISOString();
    const text = "x".repeat(kib * 1024);
    const seed = async (count: number) => {
      for (let done = 0; done < count; done += 500) {
        const rows = Array.from({ length: Math.min(500, count - done) }, () =>
          jobRow({
            id: `job_bl${randomBytes(9).toString("hex")}`,
            tenantId,
            sessionId: sid,
            status: "succeeded",
            result: { content: [{ type: "text", text }], state: "success" },
            createdAt: old,
            finishedAt: old,
          }),
        );
        await atomically(db, (tx) => [tx.insert(tablesOf(tx).jobs).values(rows)] as const);
      }
    };
    const settings = retentionSettings(config);
    console.log(
      `backlog ${backlog} finished jobs of ${kib} KiB; batch ${settings.batch}, pause ${settings.pauseMs} ms; ${n} calls of each kind per turn`,
    );
    /** The event loop's delay over a turn (ms): what a batch holding the loop costs every request. */
    let loop = "";
    const measure = async (): Promise<Record<string, Timing>> => {
      const h = monitorEventLoopDelay({ resolution: 1 });
      h.enable();
      try {
        return await measureCalls();
      } finally {
        h.disable();
        const ms = (ns: number) => (ns / 1e6).toFixed(1);
        loop = `loop delay p50 ${ms(h.percentile(50))} p99 ${ms(h.percentile(99))} max ${ms(h.max)} ms`;
      }
    };
    const measureCalls = async (): Promise<Record<string, Timing>> => {
      const read: number[] = [];
      const bash: number[] = [];
      for (let i = 0; i < n; i++) {
        let t = performance.now();
        await call("Read", { file_path: file });
        read.push(performance.now() - t);
        t = performance.now();
        await call("Bash", { command: "echo hi" });
        bash.push(performance.now() - t);
      }
      return { Read: summarize(read), Bash: summarize(bash) };
    };
    await seed(backlog);
    // Writing the backlog left a long WAL to checkpoint: let it settle before the first turn. The
    // client's idle keep-alive socket may have been closed meanwhile: one unmeasured call (sent
    // again once) opens a fresh one.
    await new Promise((r) => setTimeout(r, 5000));
    await call("Read", { file_path: file }).catch(() => call("Read", { file_path: file }));
    let left = backlog;
    for (let r = 0; r < rounds; r++) {
      const idle = await measure();
      console.log(`round ${r + 1} idle     Read ${fmt(idle.Read!)}   Bash ${fmt(idle.Bash!)}   [${loop}]`);
      // A pass runs beside the calls of this turn and is stopped at its end (the next turn's
      // pass goes on with what is left): the turns alternate on one backlog.
      let stop = false;
      const started = performance.now();
      const pass = prunePass(db, settings, new Date(), { stopped: () => stop });
      const pruning = await measure();
      stop = true;
      const deleted = (await pass).jobs ?? 0;
      const s = (performance.now() - started) / 1000;
      left -= deleted;
      console.log(
        `round ${r + 1} pruning  Read ${fmt(pruning.Read!)}   Bash ${fmt(pruning.Bash!)}   [${loop}]` +
          `   [${deleted} rows deleted in ${s.toFixed(1)} s: ${Math.round(deleted / s)} rows/s; ${left} left]`,
      );
      if (left <= 0) break;
    }
  } finally {
    await tearDown(service, config, dataDir);
  }
}
