/**
 * Runs `toolshed api|worker|serve` as a child process (a real process, as deployed) on a test
 * service's environment, and learns its URL from its own "listening" log line.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

export interface ChildService {
  proc: ChildProcess;
  /** The URL of its HTTP port (the API's, or a lone worker's). */
  url: string;
  /** Every log line it printed so far (JSON). */
  lines: string[];
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startChild(
  mode: "api" | "worker" | "serve",
  /** The test service's environment (`testEnv`, `Harness.env`). */
  baseEnv: Record<string, string>,
  /** Extra settings; `undefined` removes one. */
  env: Record<string, string | undefined> = {},
): Promise<ChildService> {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...baseEnv };
  Object.assign(childEnv, { LOG_LEVEL: "info", ...env });
  for (const k of Object.keys(childEnv)) if (childEnv[k] === undefined) delete childEnv[k];
  const proc = spawn(process.execPath, ["--import", "tsx", "src/main.ts", mode], {
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const onLine = (line: string) => {
      lines.push(line);
      const m = /"url":"([^"]+)".*"msg":"(api|worker) listening"/.exec(line);
      if (m) resolve(m[1]!);
    };
    createInterface({ input: proc.stdout! }).on("line", onLine);
    createInterface({ input: proc.stderr! }).on("line", onLine);
    proc.once("exit", (code) =>
      reject(new Error(`${mode} exited (${code}):\n${lines.slice(-20).join("\n")}`)),
    );
  });
  return {
    proc,
    url,
    lines,
    async stop(signal = "SIGTERM") {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill(signal);
      await exited;
    },
  };
}
