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

/** A GET of `spec.get` (the bare HTTP round trip), over node:http; resolves when its body is read. */
function get(url) {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.on("data", () => {});
      res.on("end", () =>
        resolve({ job: { status: res.statusCode === 200 ? "succeeded" : `HTTP ${res.statusCode}` } }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

async function viaFetch(url) {
  const res = await fetch(url, { method: "POST", headers, body });
  return res.json();
}

const call = spec.get ? get : spec.client === "http" ? post : viaFetch;
const url = (sid) => (spec.get ? `${spec.base}${spec.get}` : `${spec.base}/v1/sessions/${sid}/calls?wait=60`);
// Each call's round trip (ms), when asked for: latency as a client in its own process sees it.
const times = [];
const t0 = performance.now();
await Promise.all(
  spec.sids.map(async (sid) => {
    for (let i = 0; i < spec.perSession; i++) {
      const c0 = performance.now();
      const json = await call(url(sid)).catch((err) => ({
        error: String(err),
      }));
      if (spec.times) times.push(performance.now() - c0);
      if (json.job?.status !== "succeeded") {
        failures++;
        lastFailure = JSON.stringify(json).slice(0, 300);
      }
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
agent.destroy();
parentPort.postMessage({ seconds, calls: spec.sids.length * spec.perSession, failures, lastFailure, times });
