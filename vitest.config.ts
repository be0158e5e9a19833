import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { integrationLayout, unitLayout } from "./test/support/suite-layout.js";

const ROOT = fileURLToPath(new URL(".", import.meta.url));

// Six projects in two groups. `unit` and `unit-isolated` need nothing running; `integration`
// (files *.int.test.ts) needs the real Docker engine, Redis and the sandbox image that
// scripts/test.sh brings up; `integration-pg` runs a chosen set of those again with every harness
// on a fresh Postgres database (TOOLSHED_TEST_DB=pg: test/support/postgres.ts asks
// scripts/postgres.sh for the server, which scripts/test.sh has started). The first group runs
// those four two files at a time; the second, `integration-serial` and `integration-pg-serial`, the
// files that declare `// suite: serial — …` (test/support/suite-layout.ts), one at a time once the
// first has ended. To run one file: `npx vitest run --project integration <file>` (or
// `integration-serial`: this config says so when the file runs alone).

// Chosen by what they cover per second. On SQLite (`npx vitest run --project integration <file>`,
// 2 shared cores) they take ~2 min together (the cluster 57 s, exactly-once 16 s,
// worker-crash 8 s, sse-contract 6 s, tenancy 5 s, worker-restart 4 s, webhooks 3 s, ordering
// 3 s, the rest 1-2 s each); Postgres adds a database and its migrations per harness (~0.3 s).
// Inside the 4 minutes this project may add. They cover tenancy and
// isolation, calls, approvals and their lists, events, ordering, exactly-once, a worker killed
// and restarted, a lost queue entry, webhooks, the session MCP endpoint, workspace files,
// retention, and the two-host cluster with no shared disk. The console (17 s here) reads the same
// lists the API tests read: it runs on SQLite only.
const POSTGRES_FILES = [
  "test/e2e/tenancy.int.test.ts",
  "test/security/by-construction.int.test.ts",
  "test/e2e/calls.int.test.ts",
  "test/api/approvals-events.int.test.ts",
  "test/e2e/sse-contract.int.test.ts",
  "test/e2e/observability.int.test.ts",
  "test/e2e/ordering.int.test.ts",
  "test/e2e/exactly-once.int.test.ts",
  "test/e2e/worker-crash.int.test.ts",
  "test/e2e/worker-restart.int.test.ts",
  "test/e2e/lost-queue-entry.int.test.ts",
  "test/api/webhooks.int.test.ts",
  "test/mcp/session-server.int.test.ts",
  "test/e2e/tool-model.int.test.ts",
  "test/e2e/workspace-files.int.test.ts",
  "test/e2e/cluster.int.test.ts",
  "test/e2e/quota-race.int.test.ts",
  "test/e2e/fast-read.int.test.ts",
  "test/e2e/fast-read-bound.int.test.ts",
  "test/e2e/cancel-across-processes.int.test.ts",
  "test/e2e/retention.int.test.ts",
  // The task board's attempt fence is a different statement per dialect (FOR SHARE on Postgres).
  "test/e2e/zombie-beyond-sandbox.int.test.ts",
];

/**
 * Whether this machine can have a Postgres without installing anything now: its server binaries
 * are there (scripts/postgres.sh installs them as root; scripts/test.sh runs it first), or this
 * is CI, where a Postgres that does not start must fail the project rather than skip it.
 * Elsewhere the project has no files: it is skipped, and says so when asked for by name.
 */
function postgresAvailable(): boolean {
  if (process.env.CI) return true;
  try {
    return readdirSync("/usr/lib/postgresql").some((v) => existsSync(`/usr/lib/postgresql/${v}/bin/postgres`));
  } catch {
    return false;
  }
}
const withPostgres = postgresAvailable();
const askedForPg = process.argv.some((a) => a.includes("integration-pg"));
if (!withPostgres && askedForPg) {
  process.stderr.write("integration-pg: skipped, no Postgres on this machine (run scripts/postgres.sh as root once)\n");
}

/**
 * `--project integration <file>` finds nothing when the file runs alone (it is in
 * `integration-serial`): say where it is rather than leave vitest's "No test files found" alone.
 */
function warnWhenAskedForTheOtherHalf(serial: string[]): void {
  const argv = process.argv.slice(2);
  const projects = argv.flatMap((a, i) =>
    a === "--project" ? [argv[i + 1] ?? ""] : a.startsWith("--project=") ? [a.slice(10)] : [],
  );
  const filters = argv.filter((a) => a.includes(".int.test"));
  for (const name of ["integration", "integration-pg"]) {
    if (!projects.includes(name) || projects.includes(`${name}-serial`)) continue;
    for (const file of serial.filter((f) => filters.some((a) => f.includes(a.replace(/^\.\//, ""))))) {
      process.stderr.write(`${file} runs alone (its "// suite: serial" line): add --project ${name}-serial\n`);
    }
  }
}

// The integration files split by what each declares (test/support/suite-layout.ts): most run two
// at a time, those that touch what the others share (a `// suite: serial — …` line) one at a time
// once the rest have ended. A file Postgres runs again is split the same way.
const layout = integrationLayout(ROOT);
const serialFiles = new Set(layout.serial);
const pgSerial = POSTGRES_FILES.filter((f) => serialFiles.has(f));
const pgParallel = POSTGRES_FILES.filter((f) => !serialFiles.has(f));
warnWhenAskedForTheOtherHalf(layout.serial);

const units = unitLayout(ROOT);

const integration = {
  testTimeout: 120_000,
  hookTimeout: 180_000,
  // One module graph per worker for all the files it runs: importing the service afresh for each
  // file cost ~1.3 s a file (~3 min of a CI run). Each file makes its own harness, containers and
  // Redis prefix, and stops them; an environment a test stubs is restored after it.
  isolate: false,
  unstubEnvs: true,
};
// Two files at a time: a file spends most of its time waiting on containers, so two share the
// 2 cores CI has without either waiting much; both workers keep their own module graph. The unit
// projects run in the same group (after the integration files: vitest orders a group's files by
// project name): a group's projects share one pool, so `maxWorkers` must be the same for all.
const sideBySide = { maxWorkers: 2, sequence: { groupOrder: 0 } };
const unitTest = { testTimeout: 20_000, ...sideBySide };
// Alone: one worker, after the whole first group has ended (groups run in `groupOrder`).
const alone = { fileParallelism: false, sequence: { groupOrder: 1 } };

/** A project that runs `files` with every harness on a fresh Postgres database. */
function onPostgres(name: string, files: string[], group: typeof sideBySide | typeof alone) {
  return {
    test: {
      name,
      include: withPostgres ? files : [],
      env: { TOOLSHED_TEST_DB: "pg" },
      ...integration,
      ...group,
    },
  };
}

export default defineConfig({
  test: {
    // An empty integration-pg (no Postgres here) is a skip, not a failure.
    passWithNoTests: !withPostgres && askedForPg,
    projects: [
      // One module graph per worker (88 s -> 27 s on 2 shared cores: importing afresh for each
      // file was most of the time), but for the files that mock, spy or change a global (LEAKS)
      // and the executor's (test/support/suite-layout.ts).
      {
        test: { name: "unit", include: units.shared, isolate: false, unstubEnvs: true, ...unitTest },
      },
      { test: { name: "unit-isolated", include: units.isolated, ...unitTest } },
      { test: { name: "integration", include: layout.parallel, ...integration, ...sideBySide } },
      { test: { name: "integration-serial", include: layout.serial, ...integration, ...alone } },
      onPostgres("integration-pg", pgParallel, sideBySide),
      onPostgres("integration-pg-serial", pgSerial, alone),
    ],
  },
});
