/**
 * Runs the Python client's unittest tests (clients/python, stdlib only) from vitest, one vitest test
 * per Python test, so `.ci/run` counts them and a failure shows its traceback. The child runs
 * asynchronously: a harness serving the tests lives in this process and must keep answering.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const PYTHON_CLIENT = new URL("../../clients/python/", import.meta.url).pathname;

export interface PythonOutcome {
  status: "passed" | "failed" | "skipped";
  output: string;
}

/** The ids of the tests under `folder` (e.g. `tests/unit`), found as `python3 -m unittest` finds them. */
export function listPythonTests(folder: string): string[] {
  const out = execFileSync("python3", ["tests/run_json.py", "list", folder], {
    cwd: PYTHON_CLIENT,
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
  });
  return JSON.parse(out) as string[];
}

/**
 * Runs them with `env` added (bounded by `timeoutMs`, then killed): each id's outcome, and the
 * runner's whole output for a test that has no outcome (the run crashed or timed out).
 */
export async function runPythonTests(
  folder: string,
  env: Record<string, string> = {},
  timeoutMs = 150_000,
): Promise<{ outcomes: Record<string, PythonOutcome>; log: string }> {
  const dir = mkdtempSync(join(tmpdir(), "pytests-"));
  const file = join(dir, "results.json");
  try {
    const log = await new Promise<string>((resolve) => {
      const child = spawn("python3", ["-X", "dev", "tests/run_json.py", "run", folder, file], {
        cwd: PYTHON_CLIENT,
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout.on("data", (b: Buffer) => (text += b.toString()));
      child.stderr.on("data", (b: Buffer) => (text += b.toString()));
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        resolve(`${text}\n(python3 exited ${code ?? signal})`);
      });
    });
    let outcomes: Record<string, PythonOutcome> = {};
    try {
      outcomes = JSON.parse(readFileSync(file, "utf8")) as Record<string, PythonOutcome>;
    } catch {}
    return { outcomes, log };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
