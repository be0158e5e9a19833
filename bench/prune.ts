/**
 * `npm run bench -- prune [n=200] [--backlog N] [--kib K] [--rounds R] [--batch B]`: a warm call's latency
 * over HTTP (Read and Bash, `?wait`) while retention prunes a backlog, next to the same calls
 * with the pruner idle, in turns (idle, pruning, idle, pruning, … R rounds) on one service. The
 * backlog is N finished jobs 60 days old (default 20,000) whose results hold K KiB (default 32):
 * what a busy month leaves. Also prints the pass's own pace (rows/s) and its longest batch, which
 * on SQLite is how long one batch holds the event loop and the database's one writer.
 * Runs on SQLite; `BENCH_DB=pg` with DATABASE_URL set runs on Postgres (then TOOLSHED_SECRET_KEY too).
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
      `backlog ${backlog} finished jobs of ${kib} KiB per round; batch ${settings.batch}, pause ${settings.pauseMs} ms; ${n} calls of each kind per turn`,
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
    for (let r = 0; r < rounds; r++) {
      await seed(backlog);
      // The client's idle keep-alive socket may have been closed by the server while the backlog
      // was written: one unmeasured call (sent again once) opens a fresh one.
      await call("Read", { file_path: file }).catch(() => call("Read", { file_path: file }));
      const idle = await measure();
      console.log(`round ${r + 1} idle     Read ${fmt(idle.Read!)}   Bash ${fmt(idle.Bash!)}   [${loop}]`);
      // The pass runs beside the calls; batches are timed through a wrapped handle's transactions.
      let longest = 0;
      const batches: number[] = [];
      const timed = new Proxy(db, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver);
          if (prop !== "transaction" || typeof v !== "function") return v;
          return (...a: unknown[]) => {
            const t = performance.now();
            const out = v.apply(target, a);
            const done = () => {
              const ms = performance.now() - t;
              batches.push(ms);
              longest = Math.max(longest, ms);
            };
            if (out && typeof (out as Promise<unknown>).then === "function")
              void (out as Promise<unknown>).then(done, done);
            else done();
            return out;
          };
        },
      });
      const started = performance.now();
      let passMs = 0;
      let deleted = 0;
      const pass = prunePass(timed, settings, new Date()).then((c) => {
        passMs = performance.now() - started;
        deleted = c.jobs ?? 0;
      });
      const pruning = await measure();
      const overlapMs = performance.now() - started;
      await pass;
      const b = summarize(batches);
      console.log(
        `round ${r + 1} pruning  Read ${fmt(pruning.Read!)}   Bash ${fmt(pruning.Bash!)}   [${loop}]` +
          `   [pass: ${deleted} rows in ${(passMs / 1000).toFixed(1)} s (${Math.round(deleted / (passMs / 1000))} rows/s), ` +
          `batch p50 ${b.p50.toFixed(1)} ms, longest ${longest.toFixed(1)} ms; calls measured ${(overlapMs / 1000).toFixed(1)} s${passMs < overlapMs ? ", the pass ended first" : ""}]`,
      );
    }
  } finally {
    await tearDown(service, config, dataDir);
  }
}
