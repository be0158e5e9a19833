/**
 * A load generator on its own thread: `width` sessions each make `perSession` calls in a row,
 * all sessions at once, over HTTP. A real client never shares the service's event loop; run in
 * the bench's own thread, the client's fetches (~0.5 ms of CPU per call) are taken from the
 * service's one thread and the figure is the service's and its client's together. On its own
 * thread the client still shares the machine's cores: its `http` variant (node:http on kept-alive
 * connections, as a load generator) takes less of them than `fetch`.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

export interface LoadSpec {
  base: string;
  key: string;
  sids: string[];
  perSession: number;
  tool: string;
  input: object;
  /**
   * The client: on a thread of this process, the global fetch or node:http on kept-alive
   * connections; or `raw`, a process of its own on raw kept-alive sockets (load-raw.mjs), as a
   * load generator like wrk: the least of its own CPU, and counted apart (`toolshed-load`).
   */
  client: "fetch" | "http" | "raw";
  /** Instead of calls, GETs of this path (node:http; `tool` and `input` are then unused). */
  get?: string;
  /** Keep each call's round trip (`LoadResult.times`). */
  times?: boolean;
}

export interface LoadResult {
  seconds: number;
  calls: number;
  failures: number;
  lastFailure: string;
  /** Each call's round trip in ms, when `times` was asked for (else empty). */
  times: number[];
  /** The `raw` client's process: its CPU from `onReady` on, in ms. */
  clientCpuMs?: number;
}

/**
 * Runs the load on a new thread (load-thread-worker.mjs), or for `raw` in a new process
 * (load-raw.mjs); resolves with what it measured. `onReady` runs just before the first call: for
 * `raw`, once its process has started and connected (a measure taken there leaves out the start).
 */
export function runLoad(spec: LoadSpec, onReady: () => void = () => {}): Promise<LoadResult> {
  if (spec.client === "raw" && !spec.get) return inProcess(spec, onReady);
  onReady();
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./load-thread-worker.mjs", import.meta.url), { workerData: spec });
    worker.once("message", (r: LoadResult) => {
      resolve(r);
      void worker.terminate();
    });
    worker.once("error", reject);
  });
}

/** The raw client's process: it says `ready` once connected, starts on `go`, ends with its result. */
function inProcess(spec: LoadSpec, onReady: () => void): Promise<LoadResult> {
  const script = fileURLToPath(new URL("./load-raw.mjs", import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, JSON.stringify(spec)], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text: string) => {
      out += text;
      if (out === "ready\n") {
        out = "";
        onReady();
        child.stdin.end("go\n");
      }
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`the load generator exited with ${code}`));
      try {
        resolve(JSON.parse(out) as LoadResult);
      } catch (err) {
        reject(err);
      }
    });
  });
}
