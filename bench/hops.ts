/**
 * `npm run bench -- hops [n]`: where a warm call's time goes, hop by hop. Each call is timed at
 * the points it passes: the client's (undici's channels), Node's HTTP server's, and the service's
 * own (src/call-path.ts). A warm Read with `wait`, a `GET /healthz`, a bare executor readFile and a
 * warm Bash `echo` run in turns (one of each per round), so that the machine's load falls on all
 * alike; the p50 of each point (from the call's start) and of each hop is printed, and the Read's
 * extra time over /healthz is split into the client before sending, before the service has the
 * request, inside it, and after it answered (the client's side, and whatever the service does after
 * answering, in this thread).
 */
import { randomBytes } from "node:crypto";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CALL_PATH_CHANNEL } from "../src/call-path.js";
import { startService } from "../src/cli/compose.js";
import { benchConfig, benchTenant, jsonClient, tearDown } from "./support.js";

const ADMIN = `bench-admin-${randomBytes(8).toString("hex")}`;

/** Node's and undici's own channels, by the name the table gives their point. */
const BUILT_IN: [string, string][] = [
  ["undici:client:sendHeaders", "client sent"],
  ["http.server.request.start", "service has request"],
  ["http.server.response.finish", "service answered"],
  ["undici:request:headers", "client has head"],
];

/** The points one call passed, each at its first pass, in ms since the call began. */
type Marks = Map<string, number>;

const p50 = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const us = (ms: number) => `${Math.round(ms * 1000)}`.padStart(6);

export async function run(args: string[]): Promise<void> {
  const n = Number(args[0] ?? 400);
  const dataDir = mkdtempSync(join(tmpdir(), "tsb-"));
  const config = benchConfig(dataDir, ADMIN, { WORKER_CONCURRENCY: "64" });
  const service = await startService(config, "serve");
  const base = service.url!;
  const req = jsonClient(base);
  let marks: Marks | undefined;
  let began = 0;
  const mark = (name: string) => {
    if (marks && !marks.has(name)) marks.set(name, performance.now() - began);
  };
  const listeners: [string, (message: unknown) => void][] = [
    [CALL_PATH_CHANNEL, (point) => mark(String(point))],
    ...BUILT_IN.map(([channel, name]): [string, () => void] => [channel, () => mark(name)]),
  ];
  try {
    const { tenantId, agent, newSession } = await benchTenant(req, ADMIN, ["Read", "Bash"]);
    const sid = await newSession();
    const file = "/workspace/bench-4k";
    const post = (tool: string, input: object) => async () => {
      const { job } = await req("POST", `/v1/sessions/${sid}/calls?wait=60`, agent, { tool, input });
      if (job.status !== "succeeded") throw new Error(`${tool} ended ${job.status}`);
    };
    await post("Bash", { command: `head -c 4096 /dev/zero | tr '\\0' x > ${file}` })();
    const sandbox = await service.deps.sandboxes.acquire({ sessionId: sid, tenantId });
    const kinds: [string, () => Promise<void>][] = [
      ["warm Read 4 KiB (wait)", post("Read", { file_path: file })],
      ["GET /healthz", async () => void (await fetch(`${base}/healthz`)).arrayBuffer()],
      ["executor readFile 4 KiB", async () => void (await sandbox.readFile(file))],
      ["warm Bash echo (wait)", post("Bash", { command: "echo hi" })],
    ];
    for (let i = 0; i < 100; i++) for (const [, once] of kinds) await once();
    for (const [channel, fn] of listeners) subscribe(channel, fn);
    const seen = new Map<string, Marks[]>(kinds.map(([label]) => [label, []]));
    for (let i = 0; i < n; i++) {
      for (const [label, once] of kinds) {
        // What the last call does after its answer (its events, its acknowledgement) is over
        // before this one starts, else it lands in this call's first hops; a few turns of the loop,
        // not a sleep (after an idle 2 ms the Read's executor leg was 1.7-2.4× a bare read's).
        for (let turn = 0; turn < 3; turn++) await new Promise((r) => setImmediate(r));
        marks = new Map();
        began = performance.now();
        await once();
        mark("client has body");
        seen.get(label)!.push(marks);
        marks = undefined;
      }
    }
    console.log(`one warm session, ${n} rounds (service and client in this process); p50 in µs`);
    for (const [label, list] of seen) {
      const at = new Map<string, number>();
      for (const name of list[0]!.keys()) at.set(name, p50(list.map((m) => m.get(name) ?? Number.NaN)));
      const order = [...at.keys()].sort((a, b) => at.get(a)! - at.get(b)!);
      console.log(`\n${label}\n  ${"point".padEnd(26)} ${"at".padStart(6)} ${"hop".padStart(6)}`);
      order.forEach((name, i) => {
        const hop = i === 0 ? at.get(name)! : p50(list.map((m) => m.get(name)! - m.get(order[i - 1]!)!));
        console.log(`  ${name.padEnd(26)} ${us(at.get(name)!)} ${us(hop)}`);
      });
    }
    // p50 of each call's span (a difference of two p50s is no p50 of anything); "" is the call's start.
    const span = (label: string, from: string, to: string) =>
      p50(seen.get(label)!.map((m) => m.get(to)! - (from ? m.get(from)! : 0)));
    const [read, health, bare] = kinds.map(([label]) => label) as [string, string, string];
    const parts: [string, string, string][] = [
      ["the client, before sending", "", "client sent"],
      ["before the service has it", "client sent", "service has request"],
      ["inside the service", "service has request", "service answered"],
      ["after it answered", "service answered", "client has body"],
    ];
    console.log("\nwarm Read − /healthz, by part (µs, p50 of each):");
    for (const [label, from, to] of parts)
      console.log(`  ${label.padEnd(28)} ${us(span(read, from, to) - span(health, from, to))}`);
    const leg = (label: string) => us(span(label, "executor asked", "executor answered"));
    console.log(`  of which the executor leg   ${leg(read)} (a bare readFile's: ${leg(bare)})`);
  } finally {
    for (const [channel, fn] of listeners) unsubscribe(channel, fn);
    await tearDown(service, config, dataDir);
  }
}
