// The thread of bench/load-thread.ts (plain JavaScript: a worker thread does not get the bench's
// TypeScript loader). `workerData` is a LoadSpec; posts back a LoadResult.
import { parentPort, workerData } from "node:worker_threads";

const spec = workerData;
let failures = 0;
let lastFailure = "";
const body = JSON.stringify({ tool: spec.tool, input: spec.input });
const headers = { authorization: `Bearer ${spec.key}`, "content-type": "application/json" };
const t0 = performance.now();
await Promise.all(
  spec.sids.map(async (sid) => {
    for (let i = 0; i < spec.perSession; i++) {
      const res = await fetch(`${spec.base}/v1/sessions/${sid}/calls?wait=60`, {
        method: "POST",
        headers,
        body,
      });
      const json = await res.json();
      if (json.job?.status !== "succeeded") {
        failures++;
        lastFailure = JSON.stringify(json).slice(0, 300);
      }
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
parentPort.postMessage({ seconds, calls: spec.sids.length * spec.perSession, failures, lastFailure });
