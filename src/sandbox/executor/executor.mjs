// Toolshed's in-container executor (Node >= 18, no dependencies; bind-mounted read-only at
// /opt/toolshed, so changing it does not rebuild the image). It runs as the container's uid 0
// with only CAP_SETUID, CAP_SETGID, CAP_KILL and CAP_CHOWN, and starts everything else under unprivileged
// identities (identities.mjs). It *dials* the host's unix socket, which lives in a directory the
// container sees read-only and is reachable by uid 0 alone; every connection opens with a hello
// carrying the container's secret (executor.json, readable by uid 0 alone) and this executor's
// boot id, so the host trusts nothing that did not prove it is this container's executor.
//   exec  → {"op":"exec", argv, cwd, env, stdin, timeoutMs, maxOutputBytes, as, key, cwdFd, acks}
//   file  → {"op":"readFile"|"writeFile"|"stat"|"realPath", path, ..., key, acks}
//   spawn → {"op":"spawn", argv, cwd, env, as} then {"op":"stdin"|"eof"|"kill"} lines
//   all   ← {"t":"hello","v":3,...} on connect; {"t":"a"} once a request arrived; then
//   exec  ← {"t":"o","s":1|2,"d":text[,"r":1 replayed]} ... {"t":"x", exitCode, timedOut, ...}
//   file  ← {"t":"r",...} or {"t":"e", code, message}
// A request with a `key` is remembered (call-memo.mjs): sent again, it re-attaches or answers
// what it answered before; it never runs twice. Protocol 3: once a request (other than spawn) is
// answered, its connection takes the next request; the host may also just close it.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import * as path from "node:path";
import { CallMemo, validKey } from "./call-memo.mjs";
import { ExecRun, reply, replyLine, send } from "./exec-run.mjs";
import { FileClient } from "./file-client.mjs";
import { forkServer } from "./fork-server.mjs";
import { identitiesFrom, mcpUids, readerUids, UidPool } from "./identities.mjs";
import { handBack, killUid, sweepUid } from "./processes.mjs";
import { runSpawn } from "./spawn-run.mjs";
import { preloadStatxCompat } from "./user-env.mjs";
import { writeNow } from "./write-now.mjs";

const SOCKET = process.argv[2] ?? "/run/toolshed/host.sock";
const CONFIG = path.join(path.dirname(SOCKET), "executor.json");
const WORKSPACE = "/workspace";
const SPARES = 2;
// A request line carries at most a writeFile payload in base64.
const MAX_REQUEST_BYTES = 300 * 1024 * 1024;
const ACK = `${JSON.stringify({ t: "a" })}\n`;
const FILE_OPS = new Set(["readFile", "writeFile", "stat", "realPath"]);

const config = JSON.parse(readFileSync(CONFIG, "utf8"));
if (typeof config.token !== "string" || config.token.length < 32)
  throw new Error("executor.json has no token");
const TOKEN = config.token;
// An image older than the library keeps working as before (no preload of a missing file).
const STATX_COMPAT = "/usr/local/lib/toolshed-statx-compat.so";
if (config.statxCompat === true && existsSync(STATX_COMPAT)) preloadStatxCompat(STATX_COMPAT);
const BOOT = randomBytes(12).toString("hex");
const ids = identitiesFrom(config);
const readers = new UidPool(readerUids(ids.readers));
const mcpPool = new UidPool(mcpUids(ids.mcp));
const memo = new CallMemo();
const files = new FileClient(ids.agent);
const running = new Set();
// Agent processes already reported as left running by an earlier call (see ExecRun).
const agentLeftovers = new Set();
// Group-writable by default: the editor identity writes the workspace through the agent's group.
process.umask(0o002);

let spares = 0;
let backoffMs = 20;

/** Keeps SPARES connections dialled; a failed dial retries with backoff (the host may restart). */
function topUp() {
  while (spares < SPARES) dial();
}

function dial() {
  spares++;
  const sock = connect(SOCKET);
  // `busy` while a request is served on it; a connection whose request was answered whole is a
  // spare again (protocol 3: the host reuses it for its next request instead of a new dial).
  let busy = false;
  sock.on("error", () => {});
  sock.once("connect", () => send(sock, { t: "hello", v: 3, token: TOKEN, boot: BOOT }));
  sock.once("close", () => {
    if (busy) return;
    spares--;
    if (spares >= SPARES) return;
    setTimeout(topUp, backoffMs);
    backoffMs = Math.min(backoffMs * 2, 500);
  });
  readLines(sock, (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {}
    // The host is the only peer, but a bad line must not crash the executor and its commands.
    if (typeof msg !== "object" || msg === null) {
      sock.destroy();
      return;
    }
    if (busy) {
      if (msg.op === "cancel") sock.emit("toolshed-cancel");
      else sock.emit("toolshed-msg", msg);
      return;
    }
    // A cancel that crossed its request's answer: that request is over.
    if (msg.op === "cancel") return;
    busy = true;
    spares--;
    backoffMs = 20;
    topUp();
    // The answer that ends a request (reply()) leaves the connection open and spare again, except
    // a long-lived process's: its connection is its own until it ends.
    if (msg.op !== "spawn")
      sock.toolshedDone = (line) => {
        sock.toolshedDone = undefined;
        writeNow(sock, line);
        busy = false;
        spares++;
      };
    memo.ack(msg.acks);
    // The ack tells the host the request arrived: without it, a retry cannot run anything twice.
    if (!sock.destroyed) writeNow(sock, ACK);
    handle(sock, msg).catch((err) => reply(sock, { t: "e", code: err?.code ?? "EIO", message: String(err) }));
  });
}

/** Splits the socket into lines, refusing any longer than MAX_REQUEST_BYTES. */
function readLines(sock, onLine) {
  let parts = [];
  let size = 0;
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
      // Most requests come in one chunk: nothing to join.
      const line = parts.length ? Buffer.concat([...parts, piece]).toString("utf8") : piece.toString("utf8");
      parts = [];
      size = 0;
      start = nl + 1;
      onLine(line);
    }
  });
}

async function handle(sock, msg) {
  if (msg.op === "exec") return exec(sock, msg);
  if (msg.op === "spawn") return spawnMcp(sock, msg);
  if (msg.op === "ping") return reply(sock, { t: "r", boot: BOOT });
  if (FILE_OPS.has(msg.op)) return replyLine(sock, await fileOp(msg));
  return reply(sock, { t: "e", code: "EINVAL", message: `unknown op ${msg.op}` });
}

async function exec(sock, req) {
  const key = validKey(req.key) ? req.key : null;
  const known = key ? memo.get(key) : undefined;
  if (known?.run) return known.run.attach(sock, true);
  if (!Array.isArray(req.argv) || req.argv.length === 0 || !req.argv.every((a) => typeof a === "string"))
    return reply(sock, { t: "e", code: "EINVAL", message: "argv must be a non-empty array of strings" });
  let who;
  if (req.as === "reader") {
    const uid = await readers.lease();
    who = {
      name: "reader",
      uid,
      gid: ids.readers.gid,
      identity: ids.readers,
      release: () => readers.release(uid),
    };
  } else if (req.as === "editor") {
    const { editor, agent } = ids;
    who = { name: "editor", ...editor, identity: editor, release: () => handBack(editor, agent) };
  } else {
    who = { name: "agent", ...ids.agent, identity: ids.agent };
  }
  const entry = key ? memo.begin(key) : null;
  const run = new ExecRun(req, who, {
    keyed: entry !== null,
    resolveCwd,
    leftovers: agentLeftovers,
    onKept: (bytes) => entry && memo.grow(entry, bytes),
  });
  running.add(run);
  run.onDone = () => {
    running.delete(run);
    if (entry) memo.finish(key, entry);
  };
  if (entry) entry.run = run;
  if (run.final) run.onDone();
  run.attach(sock, false);
}

/**
 * A stdio MCP server: a uid of the pool no other running server has, and a fresh home only that
 * uid may enter, which is also where it starts unless the host names a directory (the workspace,
 * which the agent writes: `python -m x` or `npx x` would load the agent's code from there). When it
 * ends, whatever its uid still runs is killed and whatever it still owns (its home, files in /tmp
 * and /dev/shm, IPC objects) removed before the uid is given back.
 */
function spawnMcp(sock, msg) {
  const { gid } = ids.mcp;
  const uid = mcpPool.take();
  if (uid === undefined) {
    const who = { name: "mcp", uid: ids.mcp.uid, gid, identity: ids.mcp };
    return runSpawn(sock, msg, who, () => {
      throw new Error(`more than ${ids.mcp.count} stdio MCP servers at once in this sandbox`);
    });
  }
  const home = mcpHome(uid);
  const end = async () => {
    await killUid(uid, gid, true);
    // The home, and whatever else the uid left (files in /tmp and /dev/shm, System V queues and
    // semaphores): the next server given this uid must find none of this one's secrets.
    await sweepUid(uid, gid);
    mcpPool.release(uid);
  };
  const identity = { ...ids.mcp, uid, home: home ?? "/nonexistent" };
  const who = { name: "mcp", uid, gid, identity, end };
  return runSpawn(sock, msg, who, (cwd) => (cwd ? resolveCwd(cwd) : (home ?? "/")));
}

/** A file operation as the agent; with a key, done at most once and answered the same again. */
async function fileOp(msg) {
  const key = validKey(msg.key) ? msg.key : null;
  const known = key ? memo.get(key) : undefined;
  if (known?.reply !== undefined) return known.reply;
  if (known?.pending) return known.pending;
  const request = { op: msg.op, path: resolve(msg.path), maxBytes: msg.maxBytes, data: msg.data };
  const pending = files.request(request).then((r) => JSON.stringify(r));
  if (!key) return pending;
  const entry = memo.begin(key, { pending });
  const line = await pending;
  delete entry.pending;
  memo.finish(key, entry, line);
  return line;
}

function resolve(p) {
  if (typeof p !== "string" || p.includes("\0"))
    throw Object.assign(new Error("bad path"), { code: "EINVAL" });
  return path.resolve(WORKSPACE, p);
}

function resolveCwd(cwd) {
  return cwd ? resolve(cwd) : WORKSPACE;
}

process.on("SIGTERM", () => {
  for (const run of running) {
    try {
      process.kill(-run.child?.pid, "SIGKILL");
    } catch {}
  }
  process.exit(0);
});

/**
 * The home is the agent's alone: files in it are group-writable (umask) and the editor identity
 * shares the group, so the directory must keep everyone else out. Docker gives a tmpfs mount
 * point the image directory's mode, so its owner sets it before the first request is taken.
 */
function privateHome() {
  return new Promise((resolve) => {
    const { uid, gid, home } = ids.agent;
    const chmod = spawn("chmod", ["0700", home], {
      uid,
      gid,
      stdio: "ignore",
      env: { PATH: "/usr/bin:/bin" },
    });
    chmod.once("error", resolve);
    chmod.once("exit", resolve);
  });
}

/**
 * An MCP server's home holds files its programs run at start-up (Python's user site, Node's
 * ~/.node_modules, ~/.npmrc): were it /tmp, the agent could plant one and read the tenant's
 * secrets from the server's environment. A fresh name the agent cannot have made, the server
 * uid's alone (the sticky /tmp keeps the agent from renaming it); null when it cannot be made.
 */
function mcpHome(uid) {
  try {
    const dir = mkdtempSync("/tmp/.mcp-home-");
    // Group root's (the executor's group, no identity's), which may only pass: the server starts
    // there, and the chdir comes before the uid change, as the executor, which has no DAC override.
    chmodSync(dir, 0o710);
    chownSync(dir, uid, 0);
    return dir;
  } catch {
    return null;
  }
}

files.ensure();
// The fork server first (when the image has one): commands then start without forking this process.
Promise.all([privateHome(), forkServer.start()]).then(topUp, topUp);
