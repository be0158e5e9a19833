#!/usr/bin/env bash
# Brings the services up, runs every vitest project, and ends with the line CI reads:
# `N passed, N failed` (and `, N skipped`), alone, computed from vitest's JSON report.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
bash scripts/services.sh || { echo "services did not come up" >&2; echo "0 passed, 1 failed"; exit 1; }
# Postgres for the store's contract suite on that dialect and for the `integration-pg` project
# (installed when missing; test/support/postgres.ts asks the same script for its URL, and each
# harness makes its own database on it). In CI a Postgres that cannot start fails those tests.
bash scripts/postgres.sh >/dev/null ||
  echo "postgres did not come up: its store tests and integration-pg will skip (fail under CI)" >&2

report="$(mktemp --suffix=.json)"
trap 'rm -f "$report"' EXIT
npx vitest run --reporter=default --reporter=json --outputFile="$report" "$@" </dev/null
status=$?

# Lint and types are part of the run: a failing `npm run check` counts as one failed test.
npm run -s check </dev/null
check=$?

node - "$report" "$status" "$check" <<'JS'
const fs = require("node:fs");
const [file, status, check] = process.argv.slice(2);
let r = null;
try {
  r = JSON.parse(fs.readFileSync(file, "utf8"));
} catch {}
if (!r) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}
// A file that fails to load has no test results: count it as one failure, never as a pass.
const brokenFiles = (r.testResults ?? []).filter(
  (f) => f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed"),
).length;
const failed = (r.numFailedTests ?? 0) + brokenFiles + (check === "0" ? 0 : 1);
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`${r.numPassedTests ?? 0} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || status !== "0" ? 1 : 0);
JS
