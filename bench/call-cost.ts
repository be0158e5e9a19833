/**
 * `npm run bench -- cost [n]`: what one warm call costs the service, counted rather than timed,
 * so that a change to the call path can be judged on a busy machine too: CPU per call (this
 * process: the service in serve mode and the HTTP client), SQLite statements per call by text,
 * and Redis commands per call (`INFO commandstats`, all clients of the server: run it alone; and
 * `sent`, the commands this process sent, a script once, which other clients do not swell), and
 * the pub/sub messages this process's connections heard per call.
 * A bare `GET /healthz` is the baseline, measured the same way in the same run.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite from "better-sqlite3";
import { Redis } from "ioredis";
import { startService } from "../src/cli/compose.js";
import { benchConfig, benchTenant, jsonClient, tearDown } from "./support.js";

const ADMIN = `bench-admin-${randomBytes(8).toString("hex")}`;

/**
 * Counts every statement run on any better-sqlite3 database of this process, by its SQL, while
 * started (and notes the databases they ran on): the statement methods are wrapped only then, so
 * that the CPU and wall figures (taken in a pass of their own) do not pay for the counting.
 */
function countStatements(): {
  start(): void;
  stop(): Map<string, number>;
  timesMs(): Map<string, number>;
  databases: Set<BetterSqlite.Database>;
} {
  const seen = new Map<string, number>();
  const databases = new Set<BetterSqlite.Database>();
  const times = new Map<string, number>();
  const probe = new BetterSqlite(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, unknown>;
  probe.close();
  const methods = ["run", "all", "get", "iterate"] as const;
  const originals = methods.map((m) => proto[m] as (...a: unknown[]) => unknown);
  return {
    start: () => {
      seen.clear();
      times.clear();
      methods.forEach((m, i) => {
        const original = originals[i]!;
        proto[m] = function (this: { source: string; database: BetterSqlite.Database }, ...args: unknown[]) {
          databases.add(this.database);
          const key = `${m.padEnd(4)} ${this.source.replace(/\s+/g, " ").slice(0, 110)}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
          const t0 = performance.now();
          try {
            return original.apply(this, args);
          } finally {
            times.set(key, (times.get(key) ?? 0) + performance.now() - t0);
          }
        };
      });
    },
    timesMs: () => new Map(times),
    databases,
    stop: () => {
      methods.forEach((m, i) => {
        proto[m] = originals[i];
      });
      return new Map(seen);
    },
  };
}

/** Counts the pub/sub messages any ioredis connection of this process hears while started. */
function countMessages(): { start(): void; stop(): number } {
  const proto = Redis.prototype as unknown as {
    emit: (event: string | symbol, ...args: unknown[]) => boolean;
  };
  const original = proto.emit;
  let heard = 0;
  return {
    start: () => {
      heard = 0;
      proto.emit = function (this: unknown, event, ...args) {
        if (event === "message") heard++;
        return original.call(this, event, ...args);
      };
    },
    stop: () => {
      proto.emit = original;
      return heard;
    },
  };
}

/**
 * Counts the Redis commands this process's ioredis connections send while started, by name (a
 * script by its EVALSHA): unlike `INFO commandstats`, not swelled by other clients of the server,
 * and a script counts once, as the round trip it is. `except`: the bench's own connection.
 */
function countSent(except: Redis): { start(): void; stop(): Map<string, number> } {
  const proto = Redis.prototype as unknown as {
    sendCommand: (cmd: { name: string }, ...a: unknown[]) => unknown;
  };
  const original = proto.sendCommand;
  const sent = new Map<string, number>();
  return {
    start: () => {
      sent.clear();
      proto.sendCommand = function (this: Redis, cmd, ...rest) {
        if (this !== except) sent.set(cmd.name, (sent.get(cmd.name) ?? 0) + 1);
        return original.call(this, cmd, ...rest);
      };
    },
    stop: () => {
      proto.sendCommand = original;
      return new Map(sent);
    },
  };
}

async function redisCalls(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info("commandstats");
  const calls = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1]!, Number(m[2]));
  return calls;
}

interface Cost {
  wallMs: number;
  cpuMs: number;
  /** Minor page faults of this process per call (a fresh page costs ~7-10 µs on this VM). */
  faults: number;
  statements: Map<string, number>;
  /** Time inside each statement's run/get/all, summed over the calls. */
  statementMs: Map<string, number>;
  redis: Map<string, number>;
  /** Commands this process sent (countSent). */
  sent: Map<string, number>;
  /** Pub/sub messages heard by this process, in all. */
  heard: number;
  /** WAL frames (pages) written per call: what the calls' commits cost the log. */
  walFrames: number;
  /** With `--wal-trees`: the b-trees those pages belong to. */
  walTrees?: string;
}

/**
 * WAL frames (pages) per call, from `n` more calls: the frames the log gained is every page every
 * commit wrote (a page written by two commits counts twice, as the log does). The service's
 * checkpointer thread (every 200 ms) would let a writer restart the log under the count, so a
 * reader on a connection of its own holds a snapshot that needs the log (taken just after a
 * write of page 1) until the end; a pass whose log was restarted anyway (its salt changed) is run
 * again. A pass of its own, after the timed one, so that the timed calls pay their checkpoints
 * as a service's do. `trees`: also say which b-trees (tables, indexes) the frames were pages of.
 */
async function walPagesPerCall(
  dbs: Set<BetterSqlite.Database>,
  n: number,
  once: () => Promise<void>,
  trees = false,
): Promise<{ pages: number; trees?: string }> {
  if (dbs.size === 0) return { pages: 0 };
  for (let attempt = 0; attempt < 3; attempt++) {
    const counted = await walPass([...dbs], n, once, trees);
    if (counted) return counted;
  }
  return { pages: Number.NaN };
}

/** One pass of walPagesPerCall; undefined when a log restarted meanwhile. */
async function walPass(
  dbs: BetterSqlite.Database[],
  n: number,
  once: () => Promise<void>,
  trees: boolean,
): Promise<{ pages: number; trees?: string } | undefined> {
  const frames = (db: BetterSqlite.Database) =>
    (db.pragma("wal_checkpoint(PASSIVE)") as { log: number }[])[0]?.log ?? 0;
  const salt = (db: BetterSqlite.Database) => readFileSync(`${db.name}-wal`).subarray(16, 24).toString("hex");
  await once();
  const readers = dbs.map((db) => {
    // A frame not yet copied back when the reader starts, so that its snapshot uses the log.
    db.pragma(`user_version = ${db.pragma("user_version", { simple: true }) as number}`);
    const reader = new BetterSqlite(db.name, { readonly: true });
    reader.exec("BEGIN");
    reader.prepare("select count(*) from sqlite_schema").get();
    return reader;
  });
  const from = dbs.map(frames);
  const salts = dbs.map(salt);
  try {
    for (let i = 0; i < n; i++) await once();
    const to = dbs.map(frames);
    if (dbs.some((db, i) => salt(db) !== salts[i] || to[i]! < from[i]!)) return undefined;
    const written = to.reduce((sum, t, i) => sum + t - from[i]!, 0);
    const byTree = trees ? dbs.map((db, i) => walByTree(db, from[i]!, to[i]!, n)) : [];
    return { pages: written / n, ...(trees ? { trees: byTree.join("\n") } : {}) };
  } finally {
    for (const reader of readers) {
      reader.exec("COMMIT");
      reader.close();
    }
  }
}

/** Which b-trees the log's frames `from`..`to` were pages of, per call (pages a commit wrote). */
function walByTree(db: BetterSqlite.Database, from: number, to: number, n: number): string {
  const wal = readFileSync(`${db.name}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const owner = new Map<number, string>();
  for (const r of db.prepare("select name, pageno from dbstat").all() as { name: string; pageno: number }[])
    owner.set(r.pageno, r.name);
  const by = new Map<string, number>();
  let commits = 0;
  for (let f = from; f < to; f++) {
    const at = 32 + f * (24 + pageSize);
    const page = wal.readUInt32BE(at);
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
    const name = owner.get(page) ?? (page === 1 ? "sqlite_schema" : `page ${page}`);
    by.set(name, (by.get(name) ?? 0) + 1);
  }
  const rows = [...by].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${(v / n).toFixed(2)} ${k}`);
  return `  WAL: ${(commits / n).toFixed(2)} commits per call; pages per call: ${rows.join(", ")}`;
}

/**
 * Two passes of `n` calls: the first timed (wall, this process's CPU) with nothing counting, the
 * second counting SQLite statements (with the time inside each) and Redis commands.
 */
async function measure(
  n: number,
  redis: Redis,
  counter: ReturnType<typeof countStatements>,
  once: () => Promise<void>,
  profile: (work: () => Promise<void>) => Promise<void>,
  trees: boolean,
): Promise<Cost> {
  const c0 = process.cpuUsage();
  const f0 = process.resourceUsage().minorPageFault;
  const t0 = performance.now();
  await profile(async () => {
    for (let i = 0; i < n; i++) await once();
  });
  const wallMs = (performance.now() - t0) / n;
  const cpu = process.cpuUsage(c0);
  const faults = (process.resourceUsage().minorPageFault - f0) / n;
  const r0 = await redisCalls(redis);
  const messages = countMessages();
  const sender = countSent(redis);
  counter.start();
  messages.start();
  sender.start();
  for (let i = 0; i < n; i++) await once();
  const sent = sender.stop();
  const heard = messages.stop();
  const statements = counter.stop();
  const statementMs = counter.timesMs();
  const r1 = await redisCalls(redis);
  const redisDelta = new Map<string, number>();
  for (const [k, v] of r1) {
    const d = v - (r0.get(k) ?? 0) - (k === "info" ? 1 : 0);
    if (d > 0) redisDelta.set(k, d);
  }
  return {
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000 / n,
    faults,
    statements,
    statementMs,
    redis: redisDelta,
    sent,
    heard,
    ...(await walPagesPerCall(counter.databases, Math.min(n, 100), once, trees).then((w) => ({
      walFrames: w.pages,
      ...(w.trees ? { walTrees: w.trees } : {}),
    }))),
  };
}

const perCall = (m: Map<string, number>, n: number) =>
  [...m].map(([k, v]) => [k, v / n] as const).sort((a, b) => b[1] - a[1]);
const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/**
 * `--profile <file>` / `--profile-bash <file>`: a CPU profile of the warm Reads (Bash calls)
 * alone (open it in Chrome's DevTools).
 */
export async function profiled<T>(file: string | undefined, work: () => Promise<T>): Promise<T> {
  if (!file) return work();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  try {
    return await work();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}

export async function run(args: string[]): Promise<void> {
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args.splice(at, 2)[1] : undefined;
  };
  const profiles: Record<string, string | undefined> = {
    "warm Read": option("--profile"),
    "warm Bash": option("--profile-bash"),
  };
  const walTrees = args.includes("--wal-trees");
  const n = Number(args.filter((a) => a !== "--wal-trees")[0] ?? 300);
  const counter = countStatements();
  const dataDir = mkdtempSync(join(tmpdir(), "tsb-"));
  const config = benchConfig(dataDir, ADMIN, { WORKER_CONCURRENCY: "64" });
  const service = await startService(config, "serve");
  const redis = new Redis(config.REDIS_URL);
  const base = service.url!;
  const req = jsonClient(base);
  try {
    const { agent, newSession } = await benchTenant(req, ADMIN, ["Read", "Bash"]);
    const sid = await newSession();
    const file = "/workspace/bench-4k";
    const call = (tool: string, input: object) => async () => {
      const { job } = await req("POST", `/v1/sessions/${sid}/calls?wait=60`, agent, { tool, input });
      if (job.status !== "succeeded")
        throw new Error(`${tool} ended ${job.status}: ${JSON.stringify(job.result)}`);
    };
    await call("Bash", { command: `head -c 4096 /dev/zero | tr '\\0' x > ${file}` })();
    const kinds: [string, () => Promise<void>][] = [
      ["GET /healthz", async () => void (await fetch(`${base}/healthz`)).arrayBuffer()],
      ["warm Read 4 KiB (wait)", call("Read", { file_path: file })],
      ["warm Bash echo (wait)", call("Bash", { command: "echo hi" })],
    ];
    // Warm-up: the statement caches, the JIT, the session's sandbox.
    for (const [, once] of kinds) for (let i = 0; i < 50; i++) await once();
    console.log(`one warm session, ${n} calls each (service and client in this process)`);
    const costs: [string, Cost][] = [];
    for (const [label, once] of kinds) {
      const c = await measure(
        n,
        redis,
        counter,
        once,
        (work) => profiled(profiles[label.slice(0, 9)], work),
        walTrees,
      );
      costs.push([label, c]);
      console.log(
        `${label.padEnd(26)} wall ${c.wallMs.toFixed(2)} ms  CPU ${c.cpuMs.toFixed(2)} ms  ` +
          `faults ${c.faults.toFixed(1)}  ` +
          `SQL ${(total(c.statements) / n).toFixed(1)}  Redis ${(total(c.redis) / n).toFixed(1)}  ` +
          `sent ${(total(c.sent) / n).toFixed(2)}  ` +
          `heard ${(c.heard / n).toFixed(1)}  ` +
          `WAL pages ${c.walFrames.toFixed(1)} per call`,
      );
      if (c.walTrees) console.log(c.walTrees);
    }
    const [, read] = costs[1]!;
    const [, health] = costs[0]!;
    console.log(`Read CPU ÷ healthz CPU = ${(read.cpuMs / health.cpuMs).toFixed(1)}`);
    for (const [label, c] of costs.slice(1)) {
      console.log(`\n${label}, SQLite statements per call (count, time inside SQLite per call):`);
      for (const [k, v] of perCall(c.statements, n))
        if (v >= 0.05)
          console.log(
            `  ${v.toFixed(2)}  ${(((c.statementMs.get(k) ?? 0) / n) * 1000).toFixed(0).padStart(4)} µs  ${k}`,
          );
      console.log(`${label}, Redis commands per call:`);
      for (const [k, v] of perCall(c.redis, n)) if (v >= 0.05) console.log(`  ${v.toFixed(2)}  ${k}`);
      console.log(`${label}, Redis commands this process sent per call (a script once):`);
      for (const [k, v] of perCall(c.sent, n)) if (v >= 0.005) console.log(`  ${v.toFixed(3)}  ${k}`);
    }
  } finally {
    redis.disconnect();
    await tearDown(service, config, dataDir);
  }
}
