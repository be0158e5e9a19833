// The thread of bench/load-thread.ts (plain JavaScript: a worker thread does not get the bench's
// TypeScript loader). `workerData` is a LoadSpec; posts back a LoadResult.
//
// `spec.client` "fetch" uses the global fetch (undici, with web streams: ~0.3 ms of CPU per call);
// "http" uses node:http on kept-alive connections, one per session, as a load generator would:
// the figure is then the service's, with little of the client's in it.
import { Agent, request } from "node:http";
import { parentPort, workerData } from "node:worker_threads";

const spec = workerData;
let failures = 0;
let lastFailure = "";
const body = JSON.stringify({ tool: spec.tool, input: spec.input });
const headers = { authorization: `Bearer ${spec.key}`, "content-type": "application/json" };
const agent = new Agent({ keepAlive: true, maxSockets: spec.sids.length });

/** One call's answer as JSON, over node:http. */
function post(url) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
      (res) => {
        const parts = [];
        res.on("data", (b) => parts.push(b));
        res.on("end", () => {
          try {
            resolve(JSON.parse(Buffer.concat(parts).toString("utf8")));
          } catch (err) {
            reject(err);
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function viaFetch(url) {
  const res = await fetch(url, { method: "POST", headers, body });
  return res.json();
}

const call = spec.client === "http" ? post : viaFetch;
const t0 = performance.now();
await Promise.all(
  spec.sids.map(async (sid) => {
    for (let i = 0; i < spec.perSession; i++) {
      const json = await call(`${spec.base}/v1/sessions/${sid}/calls?wait=60`).catch((err) => ({
        error: String(err),
      }));
      if (json.job?.status !== "succeeded") {
        failures++;
        lastFailure = JSON.stringify(json).slice(0, 300);
      }
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
agent.destroy();
parentPort.postMessage({ seconds, calls: spec.sids.length * spec.perSession, failures, lastFailure });
