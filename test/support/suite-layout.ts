/**
 * Which integration files run side by side and which run alone (vitest.config.ts).
 *
 * The integration projects run two files at a time: most of a file's time is spent waiting on
 * containers, and each file makes its own harness, service id, Redis prefix, data directory and
 * ports. A file that touches what the others share (stops or fills the Docker engine, Redis,
 * Postgres or a disk, starts a second engine, changes a sysctl, counts the host's processes or
 * containers, uses a fixed port, path or name) says so on a line of its own:
 *
 *     // suite: serial — <what it touches>
 *
 * and runs in the `-serial` projects, one file at a time, after every other file has ended. A file
 * whose code looks like that but touches only what is its own says why:
 *
 *     // suite: parallel — <why>
 *
 * test/architecture/suite-layout.test.ts refuses a file whose code matches SHARED_STATE with
 * neither line, and tells its author which line matched.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export type Layout = "serial" | "parallel";

/** The declaration: `// suite: serial — why` or `// suite: parallel — why`, alone on its line. */
const DECLARATION = /^\/\/ suite: (serial|parallel) — \S.*$/gm;

/** What a file declares, in order (the guard test refuses more than one). */
export function declarations(source: string): Layout[] {
  return [...source.matchAll(DECLARATION)].map((m) => m[1] as Layout);
}

/**
 * Code that may touch what other files share, each with what it touches. A line that matches
 * needs the file to declare its layout; the patterns are broad on purpose (a false alarm costs one
 * line saying why the file is safe, a miss costs a flaky suite).
 */
export const SHARED_STATE: readonly { what: string; pattern: RegExp }[] = [
  {
    what: "a second Docker engine or the engine's own process",
    pattern: /cluster\.sh|\bdockerd\b|DOCKER_HOST/,
  },
  {
    what: "a service of the host (systemctl, service)",
    pattern: /\bsystemctl\b|\bservice (docker|redis|postgresql)\b/,
  },
  { what: "a kernel setting (sysctl, /proc/sys)", pattern: /\bsysctl\b|\/proc\/sys\// },
  { what: "a mount on the host", pattern: /["'`]u?mount["'`\s]/ },
  { what: "a filled disk", pattern: /\bfillDisk\b|\bfallocate\b|storageFullScenario/ },
  {
    what: "a Redis or Postgres server stopped, paused or emptied",
    pattern:
      /\b(flushall|flushdb|shutdown)\b|CLIENT PAUSE|DEBUG SLEEP|CONFIG SET|startPrivateRedis|postgres\.sh|ownPostgres|pg_ctl/i,
  },
  { what: "a fixed loopback port", pattern: /(127\.0\.0\.1|localhost|\[::1\]):\d{2,5}\b/ },
  { what: "a fixed host directory", pattern: /["'`]\/var\/tmp\/|CLUSTER_DIR/ },
  {
    what: "the host's processes or containers listed (a count must be of the file's own)",
    pattern:
      /listContainers\(|listImages\(|listVolumes\(|listNetworks\(|["'`]ps["'`]|readdirSync\(["'`]\/proc["'`]/,
  },
  { what: "a signal to a process found by name", pattern: /\b(pkill|killall)\b/ },
];

/** Lines of `source` (outside comments) that match SHARED_STATE: `line: what`. */
export function sharedStateLines(source: string): string[] {
  return source.split("\n").flatMap((text, i) => {
    const code = text.trim();
    if (code.startsWith("//") || code.startsWith("*") || code.startsWith("/*")) return [];
    return SHARED_STATE.filter((s) => s.pattern.test(code)).map((s) => `${i + 1}: ${s.what}: ${code}`);
  });
}

/** Every `*.test.ts` under `root`/test, as paths relative to `root`, sorted. */
function testFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return walk(path);
      return e.name.endsWith(".test.ts") ? [relative(root, path)] : [];
    });
  return walk(join(root, "test")).sort();
}

/** Every `*.int.test.ts` under `root`/test, as paths relative to `root`, sorted. */
export function integrationFiles(root: string): string[] {
  return testFiles(root).filter((f) => f.endsWith(".int.test.ts"));
}

/**
 * What changes a module or a global for the rest of the process: a module mock would not take
 * where the module is already loaded (or would leak into every later file), a spy, fake timers or
 * a changed global would outlive the file. No integration file may (they share one module graph
 * per worker); a unit file that does runs in `unit-isolated`, a fresh module graph per file.
 */
export const LEAKS = /\bvi\.(mock|doMock|spyOn|stubGlobal|useFakeTimers)\(|\bglobalThis\.\w+\s*=[^=]/;

/**
 * The unit files the executor's tests are in: its modules (src/sandbox/executor/*.mjs) are the
 * container's one process and keep process-wide state (the fork server, the agent's leftovers),
 * which those tests stand in for or patch.
 */
const EXECUTOR_TESTS = "test/sandbox/";

/**
 * The unit files split: `shared` run in one module graph per worker (importing the code afresh for
 * each of ~170 files was ~60 % of the project's time), `isolated` each in a graph of its own: those
 * that match LEAKS and the executor's.
 */
export function unitLayout(root: string): { shared: string[]; isolated: string[] } {
  const layout = { shared: [] as string[], isolated: [] as string[] };
  for (const file of testFiles(root).filter((f) => !f.endsWith(".int.test.ts"))) {
    const own = file.startsWith(EXECUTOR_TESTS) || LEAKS.test(readFileSync(join(root, file), "utf8"));
    (own ? layout.isolated : layout.shared).push(file);
  }
  return layout;
}

/** The integration files split by what each declares (undeclared: side by side). */
export function integrationLayout(root: string): Record<Layout, string[]> {
  const layout: Record<Layout, string[]> = { serial: [], parallel: [] };
  for (const file of integrationFiles(root)) {
    layout[declarations(readFileSync(join(root, file), "utf8"))[0] ?? "parallel"].push(file);
  }
  return layout;
}
