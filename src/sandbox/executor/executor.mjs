// Toolshed's in-container executor (Node >= 18, no dependencies; bind-mounted read-only at
// /opt/toolshed, so changing it does not rebuild the image). It runs as the agent user under the
// container's init and *dials* the host's unix socket: the host listens in a directory that the
// container only sees read-only, so nothing in the sandbox can swap the socket for a symlink that
// the host would follow. It keeps SPARES idle connections open; each one carries one request:
//   host → {"op":"exec"|"readFile"|"writeFile"|"stat"|"realPath", ...}\n   (then {"op":"cancel"}\n)
//   all  ← {"t":"a"}\n first (request received), then:
//   exec ← {"t":"o","s":1|2,"d":text}\n ... {"t":"x",exitCode,timedOut,cancelled,truncated,durationMs}\n
//   file ← {"t":"r",...}\n  or  {"t":"e","code":errno,"message":text}\n
// "spawn" starts a long-lived process (stdio MCP servers): the host then streams
//   {"op":"stdin","d":text}\n, {"op":"eof"}\n or {"op":"kill"}\n; output comes back as for exec,
//   ending with {"t":"x",exitCode,signal,durationMs}\n. Closing the connection kills the group.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import { connect } from "node:net";
import { constants as osc } from "node:os";
import * as path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { readFile, realPath, statOrNull, writeFile } from "./file-ops.mjs";

const SOCKET = process.argv[2] ?? "/run/toolshed/host.sock";
const WORKSPACE = "/workspace";
const SPARES = 2;
// A request line carries at most a writeFile payload in base64.
const MAX_REQUEST_BYTES = 300 * 1024 * 1024;
// After a kill, wait this long for stragglers that escaped the group still holding the pipes.
const KILL_GRACE_MS = 1000;
const CHILD_ENV = {
  PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  HOME: "/home/agent",
  USER: "agent",
  LOGNAME: "agent",
  SHELL: "/bin/bash",
  LANG: "C.UTF-8",
  TMPDIR: "/tmp",
};

// setTimeout fires at once past 2^31-1 ms; a longer timeout means "about 24 days".
const MAX_TIMER_MS = 2 ** 31 - 1;
const clamp = (n, lo, hi) => Math.min(Math.max(Number.isFinite(n) ? Math.floor(n) : lo, lo), hi);

const running = new Set();
let spares = 0;
let backoffMs = 20;

/** Keeps SPARES connections dialled; a failed dial retries with backoff (the host may restart). */
function topUp() {
  while (spares < SPARES) dial();
}

function dial() {
  spares++;
  const sock = connect(SOCKET);
  let used = false;
  sock.on("error", () => {});
  sock.once("close", () => {
    if (used) return;
    spares--;
    setTimeout(topUp, backoffMs);
    backoffMs = Math.min(backoffMs * 2, 500);
  });
  readLines(sock, (line, first) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {}
    // The host is the only peer, but a bad line must not crash the executor and its commands.
    if (typeof msg !== "object" || msg === null) {
      sock.destroy();
      return;
    }
    if (!first) {
      if (msg.op === "cancel") sock.emit("toolshed-cancel");
      else sock.emit("toolshed-msg", msg);
      return;
    }
    used = true;
    spares--;
    backoffMs = 20;
    topUp();
    // The ack tells the host the request arrived: without it, a retry cannot run anything twice.
    send(sock, { t: "a" });
    handle(sock, msg).catch((err) => reply(sock, { t: "e", code: err?.code ?? "EIO", message: String(err) }));
  });
}

/** Splits the socket into lines, refusing any longer than MAX_REQUEST_BYTES. */
function readLines(sock, onLine) {
  let parts = [];
  let size = 0;
  let first = true;
  sock.on("data", (chunk) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      size += piece.length;
      if (size > MAX_REQUEST_BYTES) return sock.destroy();
      if (nl === -1) {
        if (piece.length) parts.push(piece);
        return;
      }
      parts.push(piece);
      const line = Buffer.concat(parts).toString("utf8");
      parts = [];
      size = 0;
      start = nl + 1;
      onLine(line, first);
      first = false;
    }
  });
}

function reply(sock, msg) {
  if (!sock.destroyed) sock.end(`${JSON.stringify(msg)}\n`);
}

function send(sock, msg) {
  if (!sock.destroyed) sock.write(`${JSON.stringify(msg)}\n`);
}

async function handle(sock, msg) {
  switch (msg.op) {
    case "exec":
      return runExec(sock, msg);
    case "spawn":
      return runSpawn(sock, msg);
    case "readFile":
      return reply(sock, await readFile(resolve(msg.path), msg.maxBytes));
    case "writeFile":
      return reply(sock, await writeFile(resolve(msg.path), Buffer.from(msg.data, "base64")));
    case "stat":
      return reply(sock, { t: "r", stat: await statOrNull(resolve(msg.path)) });
    case "realPath":
      return reply(sock, { t: "r", path: await realPath(resolve(msg.path)) });
    default:
      return reply(sock, { t: "e", code: "EINVAL", message: `unknown op ${msg.op}` });
  }
}

function resolve(p) {
  if (typeof p !== "string" || p.includes("\0"))
    throw Object.assign(new Error("bad path"), { code: "EINVAL" });
  return path.resolve(WORKSPACE, p);
}

/**
 * Spawns argv in its own process group (so that it can be killed whole); null when it could not
 * start, after answering the failure once (`claimFinish` guards against a second answer).
 */
function startChild(sock, req, stdin, startedAt, claimFinish) {
  let child;
  try {
    child = spawn(req.argv[0], req.argv.slice(1), {
      cwd: req.cwd ? resolve(req.cwd) : WORKSPACE,
      env: { ...CHILD_ENV, ...(req.env ?? {}) },
      detached: true,
      stdio: [stdin, "pipe", "pipe"],
    });
  } catch (err) {
    spawnFailed(sock, err, startedAt, req.cwd);
    return null;
  }
  child.on("error", (err) => {
    if (child.pid === undefined && claimFinish()) spawnFailed(sock, err, startedAt, req.cwd);
  });
  if (child.pid === undefined) return null;
  running.add(child);
  // Make the command, not the executor, the memory-cgroup OOM killer's first choice.
  fs.writeFile(`/proc/${child.pid}/oom_score_adj`, "1000").catch(() => {});
  return child;
}

/** Runs argv in its own process group, streams capped output, kills the group on timeout/cancel. */
function runExec(sock, req) {
  const startedAt = Date.now();
  const max = clamp(req.maxOutputBytes, 0, Number.MAX_SAFE_INTEGER);
  const streams = [1, 2].map((s) => ({ s, bytes: 0, cut: false, decoder: new StringDecoder("utf8") }));
  let truncated = false;
  let killedFor = null;
  let exit = null;
  let finished = false;
  const claimFinish = () => {
    if (finished) return false;
    finished = true;
    return true;
  };

  const stdin = typeof req.stdin === "string" ? "pipe" : "ignore";
  const child = startChild(sock, req, stdin, startedAt, claimFinish);
  if (!child) return;
  if (child.stdin) {
    child.stdin.on("error", () => {});
    child.stdin.end(req.stdin);
  }

  const onData = (st) => (buf) => {
    if (st.bytes >= max) {
      truncated = st.cut = true;
      return;
    }
    const take = buf.length <= max - st.bytes ? buf : buf.subarray(0, max - st.bytes);
    if (take !== buf) truncated = st.cut = true;
    st.bytes += take.length;
    const text = st.decoder.write(take);
    if (text) send(sock, { t: "o", s: st.s, d: text });
  };
  child.stdout.on("data", onData(streams[0]));
  child.stderr.on("data", onData(streams[1]));

  const kill = (reason) => {
    if (killedFor || finished) return;
    killedFor = reason;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    setTimeout(() => {
      child.stdout.destroy();
      child.stderr.destroy();
      finish();
    }, KILL_GRACE_MS).unref();
  };
  const timer = setTimeout(() => kill("timeout"), clamp(req.timeoutMs, 1, MAX_TIMER_MS));
  sock.on("toolshed-cancel", () => kill("cancel"));
  sock.once("close", () => kill("cancel"));

  child.once("exit", (code, signal) => {
    exit = { code, signal };
  });
  child.once("close", (code, signal) => {
    exit ??= { code, signal };
    finish();
  });

  function finish() {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    running.delete(child);
    for (const st of streams) {
      // A character split by the cap is dropped rather than sent as U+FFFD.
      const rest = st.cut ? "" : st.decoder.end();
      if (rest) send(sock, { t: "o", s: st.s, d: rest });
    }
    let exitCode = null;
    if (exit && !(killedFor && exit.signal === "SIGKILL")) {
      exitCode = exit.code ?? 128 + (osc.signals[exit.signal] ?? 0);
    }
    reply(sock, {
      t: "x",
      exitCode,
      timedOut: killedFor === "timeout",
      cancelled: killedFor === "cancel",
      truncated,
      durationMs: Date.now() - startedAt,
    });
  }
}

/** Starts a long-lived process in its own group; stdin comes from later lines, output streams back. */
function runSpawn(sock, req) {
  const startedAt = Date.now();
  const decoders = [new StringDecoder("utf8"), new StringDecoder("utf8")];
  let finished = false;
  const claimFinish = () => {
    if (finished) return false;
    finished = true;
    return true;
  };
  let killed = false;
  let exit = null;
  const child = startChild(sock, req, "pipe", startedAt, claimFinish);
  if (!child) return;
  child.stdin.on("error", () => {});
  child.stdout.on("data", (buf) => {
    const d = decoders[0].write(buf);
    if (d) send(sock, { t: "o", s: 1, d });
  });
  child.stderr.on("data", (buf) => {
    const d = decoders[1].write(buf);
    if (d) send(sock, { t: "o", s: 2, d });
  });

  const kill = () => {
    if (killed || finished) return;
    killed = true;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    setTimeout(() => {
      child.stdout.destroy();
      child.stderr.destroy();
      finish();
    }, KILL_GRACE_MS).unref();
  };
  sock.on("toolshed-msg", (m) => {
    if (m.op === "stdin" && typeof m.d === "string") child.stdin.write(m.d);
    else if (m.op === "eof") child.stdin.end();
    else if (m.op === "kill") kill();
  });
  sock.on("toolshed-cancel", kill);
  sock.once("close", kill);
  child.once("exit", (code, signal) => {
    exit = { code, signal };
  });
  child.once("close", (code, signal) => {
    exit ??= { code, signal };
    finish();
  });

  function finish() {
    if (finished) return;
    finished = true;
    running.delete(child);
    // The group may outlive its leader; nothing of it may keep running once the host is told.
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    reply(sock, {
      t: "x",
      exitCode: exit && !killed ? (exit.code ?? 128 + (osc.signals[exit.signal] ?? 0)) : null,
      signal: exit?.signal ?? null,
      durationMs: Date.now() - startedAt,
    });
  }
}

function spawnFailed(sock, err, startedAt, cwd) {
  // Node reports a missing cwd as the program missing; say which it was.
  let message = err.message;
  try {
    if (cwd && !existsSync(resolve(cwd))) message = `cwd ${cwd}: no such directory`;
  } catch {}
  send(sock, { t: "o", s: 2, d: `${message}\n` });
  reply(sock, {
    t: "x",
    exitCode: 127,
    timedOut: false,
    cancelled: false,
    truncated: false,
    durationMs: Date.now() - startedAt,
  });
}

process.on("SIGTERM", () => {
  for (const child of running) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }
  process.exit(0);
});

topUp();
