/**
 * A load generator on its own thread: `width` sessions each make `perSession` calls in a row,
 * all sessions at once, over HTTP. A real client never shares the service's event loop; run in
 * the bench's own thread, the client's fetches (~0.5 ms of CPU per call) are taken from the
 * service's one thread and the figure is the service's and its client's together. On its own
 * thread the client still shares the machine's cores: its `http` variant (node:http on kept-alive
 * connections, as a load generator) takes less of them than `fetch`.
 */
import { Worker } from "node:worker_threads";

export interface LoadSpec {
  base: string;
  key: string;
  sids: string[];
  perSession: number;
  tool: string;
  input: object;
  /** The thread's HTTP client: the global fetch, or node:http on kept-alive connections. */
  client: "fetch" | "http";
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
}

/** Runs the load on a new thread (load-thread-worker.mjs); resolves with what it measured. */
export function loadOnThread(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./load-thread-worker.mjs", import.meta.url), { workerData: spec });
    worker.once("message", (r: LoadResult) => {
      resolve(r);
      void worker.terminate();
    });
    worker.once("error", reject);
  });
}
