// A load generator in its own process, on raw kept-alive sockets (as wrk is, for the same reason: a
// load generator's own CPU is taken from the machine it measures). Each session gets one
// connection and sends its calls on it one after another; the request's bytes are built once per
// session; the answer is read by its framing (Content-Length or chunked) and its JSON parsed to
// check the job succeeded. The spec (a LoadSpec of load-thread.ts, `client: "raw"`) comes as
// argv[2]; the LoadResult is printed on stdout as one JSON line. Plain JavaScript: started with
// plain `node`, without the bench's TypeScript loader.
import { connect } from "node:net";

/** The request's bytes for one session: the same every call. */
function requestFor(spec, sid) {
  const { hostname, port } = new URL(spec.base);
  const body = Buffer.from(JSON.stringify({ tool: spec.tool, input: spec.input }));
  const head =
    `POST /v1/sessions/${sid}/calls?wait=60 HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
    `Authorization: Bearer ${spec.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/**
 * Where the response in `buf` ends and its body, or undefined while it is incomplete. Handles a
 * Content-Length body and a chunked one (the only two a JSON answer comes in).
 */
export function parseResponse(buf) {
  const headEnd = buf.indexOf("\r\n\r\n");
  if (headEnd === -1) return undefined;
  const head = buf.subarray(0, headEnd).toString("latin1");
  const status = Number(head.slice(9, 12));
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  let at = headEnd + 4;
  if (length) {
    const end = at + Number(length[1]);
    return buf.length < end ? undefined : { status, body: buf.subarray(at, end), end };
  }
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) throw new Error(`no framing in: ${head}`);
  const parts = [];
  for (;;) {
    const lineEnd = buf.indexOf("\r\n", at);
    if (lineEnd === -1) return undefined;
    const size = Number.parseInt(buf.subarray(at, lineEnd).toString("latin1"), 16);
    const dataEnd = lineEnd + 2 + size;
    if (buf.length < dataEnd + 2) return undefined;
    if (size === 0) return { status, body: Buffer.concat(parts), end: dataEnd + 2 };
    parts.push(buf.subarray(lineEnd + 2, dataEnd));
    at = dataEnd + 2;
  }
}

/** A connection for one session, once connected. */
function connected(spec) {
  const { hostname, port } = new URL(spec.base);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(port), hostname);
    sock.setNoDelay(true);
    sock.once("connect", () => resolve(sock));
    sock.once("error", reject);
  });
}

/** One session's calls in a row on its connection; counts into `tally`. */
function session(spec, sid, sock, tally) {
  return new Promise((resolve) => {
    const request = requestFor(spec, sid);
    let buf = Buffer.alloc(0);
    let done = 0;
    let c0 = 0;
    let over = false;
    const send = () => {
      c0 = performance.now();
      sock.write(request);
    };
    const fail = (why) => {
      if (over) return;
      over = true;
      tally.failures += spec.perSession - done;
      tally.lastFailure = why;
      sock.destroy();
      resolve();
    };
    sock.on("error", (err) => fail(String(err)));
    sock.on("close", () => done < spec.perSession && fail("connection closed"));
    sock.on("data", (chunk) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      let res;
      try {
        res = parseResponse(buf);
      } catch (err) {
        return fail(String(err));
      }
      if (!res) return;
      if (spec.times) tally.times.push(performance.now() - c0);
      buf = buf.subarray(res.end);
      let status = `HTTP ${res.status}`;
      try {
        status = JSON.parse(res.body.toString("utf8")).job?.status ?? status;
      } catch {}
      if (status !== "succeeded") {
        tally.failures++;
        tally.lastFailure = `${status}: ${res.body.toString("utf8").slice(0, 300)}`;
      }
      if (++done === spec.perSession) {
        over = true;
        sock.end();
        return resolve();
      }
      send();
    });
    send();
  });
}

// Imported by the tests for parseResponse alone: the load runs only when started as a script.
if (process.argv[2]) {
  process.title = "toolshed-load";
  const spec = JSON.parse(process.argv[2]);
  const tally = { failures: 0, lastFailure: "", times: [] };
  const socks = await Promise.all(spec.sids.map(() => connected(spec)));
  // Started and connected: the parent measures from here, and says go.
  process.stdout.write("ready\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(spec.sids.map((sid, i) => session(spec, sid, socks[i], tally)));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const clientCpuMs = (cpu.user + cpu.system) / 1000;
  const calls = spec.sids.length * spec.perSession;
  process.stdout.write(`${JSON.stringify({ seconds, calls, clientCpuMs, ...tally })}\n`);
}
