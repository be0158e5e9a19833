/**
 * `npm run bench -- policy [passes]`: the Bash permission decision against its own floor, a bare
 * tree-sitter parse plus a full tree walk of the same commands, measured in the same process.
 */
import { readFileSync } from "node:fs";
import { parseBash } from "../src/permission/bash/parser.js";
import { bashPolicy } from "../src/permission/bash/policy.js";
import { checkPermission } from "../src/permission/engine.js";
import type { PermissionContext, PermissionRule } from "../src/permission/types.js";

const CORPUS = new URL("./corpus/agent-commands.txt", import.meta.url);

/** The corpus, one command per line; `↵` stands for a newline, `#` lines are comments. */
function loadCorpus(): string[] {
  return readFileSync(CORPUS, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"))
    .map((l) => l.replaceAll("↵", "\n"));
}

function rules(behavior: PermissionRule["behavior"], contents: string[]): PermissionRule[] {
  return contents.map((c) => ({ toolName: "Bash", ruleContent: c, behavior, source: "tenant" }));
}

/** A realistic tenant rule set of eleven rules. */
const CTX: PermissionContext = {
  mode: "default",
  cwd: "/workspace",
  home: "/home/agent",
  workingDirectories: [],
  rules: {
    allow: rules("allow", [
      "npm run:*",
      "npm test",
      "pnpm:*",
      "git add:*",
      "git commit:*",
      "pytest:*",
      "cargo build:*",
      "cargo test:*",
    ]),
    deny: rules("deny", ["curl:*", "git push --force:*"]),
    ask: rules("ask", ["docker run *"]),
  },
};

/** Parse and visit every node, reading what any analysis must read (type and offsets). */
function parseAndWalk(command: string): number {
  const tree = parseBash(command);
  if (tree === null) return 0;
  const c = tree.walk();
  let n = 0;
  for (;;) {
    n += c.nodeType.length + c.endIndex - c.startIndex;
    if (c.gotoFirstChild()) continue;
    for (;;) {
      if (c.gotoNextSibling()) break;
      if (!c.gotoParent()) return n;
    }
  }
}

interface Measure {
  /** Every sample, in ms. */
  samples: number[];
  /** Per command, its samples across passes (for a noise-robust median). */
  perCommand: number[][];
}

function newMeasure(n: number): Measure {
  return { samples: [], perCommand: Array.from({ length: n }, () => []) };
}

function time(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

interface Row {
  /** Commands per second from the per-command medians (robust to other load on the machine). */
  rate: number;
  /** Commands per second from the plain total time. */
  rawRate: number;
  line: string;
}

function row(name: string, m: Measure): Row {
  const sorted = [...m.samples].sort((x, y) => x - y);
  const medians = m.perCommand.map((s) =>
    percentile(
      [...s].sort((x, y) => x - y),
      50,
    ),
  );
  const rate = medians.length / (medians.reduce((x, y) => x + y, 0) / 1000);
  const rawRate = m.samples.length / (m.samples.reduce((x, y) => x + y, 0) / 1000);
  const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
  const cells = [
    name.padEnd(38),
    `${rate.toFixed(0).padStart(7)} /s`,
    `${rawRate.toFixed(0).padStart(7)} /s`,
    us(percentile(sorted, 50)).padStart(10),
    us(percentile(sorted, 99)).padStart(10),
  ];
  return { rate, rawRate, line: `| ${cells.join(" | ")} |` };
}

/** Runs the bench: warm-up, then interleaved passes of the floor and the full decision. */
export async function run(args: string[]): Promise<void> {
  // 20 passes: with 5, per-command medians still swing a few percent run to run (both sides).
  const passes = Number(args[0] ?? 20) || 20;
  const commands = loadCorpus();
  const policy = bashPolicy();
  const decide = (command: string) => checkPermission(policy, { command }, CTX);
  const tally = new Map<string, number>();
  for (const c of commands) {
    const b = decide(c).behavior;
    tally.set(b, (tally.get(b) ?? 0) + 1);
  }
  for (let i = 0; i < 2; i++) {
    for (const c of commands) {
      parseAndWalk(c);
      decide(c);
    }
  }
  // Interleaved per command, so load from other processes hits both measures alike.
  const bare = newMeasure(commands.length);
  const full = newMeasure(commands.length);
  for (let i = 0; i < passes; i++) {
    commands.forEach((c, j) => {
      const ta = time(() => parseAndWalk(c));
      const tb = time(() => decide(c));
      bare.samples.push(ta);
      bare.perCommand[j]?.push(ta);
      full.samples.push(tb);
      full.perCommand[j]?.push(tb);
    });
  }
  const a = row("(a) tree-sitter parse + full walk", bare);
  const b = row("(b) checkPermission(bashPolicy(), …)", full);
  const header = [
    "measure".padEnd(38),
    "rate (median)",
    "rate (mean)",
    "p50".padStart(10),
    "p99".padStart(10),
  ];
  const out = [
    `corpus: ${commands.length} commands × ${passes} passes (after 2 warm-up passes); default mode, 11 tenant rules`,
    `decisions: ${[...tally].map(([k, v]) => `${k} ${v}`).join(", ")}`,
    "",
    `| ${header.join(" | ")} |`,
    `|${header.map((h) => "-".repeat(h.length + 2)).join("|")}|`,
    a.line,
    b.line,
    "",
    `ratio (b rate / a rate): ${(b.rate / a.rate).toFixed(2)} from per-command medians, ${(b.rawRate / a.rawRate).toFixed(2)} from totals (target ≥ 0.80)`,
  ];
  process.stdout.write(`${out.join("\n")}\n`);
}
