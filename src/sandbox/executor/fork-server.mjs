// The executor's end of the image's fork server (images/sandbox/spawner.c): a tiny process started
// once, which forks and execs commands on the executor's behalf, so that a command no longer pays
// a fork of this ~35 MiB Node process. Policy stays here (identity, environment, cwd, caps,
// timeouts, kills); the spawner only does what a request spells out. Its children connect back to
// a unix socket in a directory only uid 0 may enter, once per stream (stdin, stdout, stderr and
// the cwd report on fd 9), before they drop to their identity.
// `spawn()` resolves to a ChildProcess look-alike (pid, stdin, stdout, stderr, stdio[9]; 'exit'
// then 'close'), or null when the fork server is not there (an image without it, a full /tmp,
// a spawner that died): the caller then uses Node's spawn, as before.
import { spawn as nodeSpawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { constants as osc } from "node:os";
import * as path from "node:path";

export const SPAWNER_BIN = "/usr/local/libexec/toolshed-spawner";
const HEADER = 32;
const CWD_FD = 9;
// Connections of a started command come before its "P" line; this only bounds a broken one.
const STREAMS_TIMEOUT_MS = 5000;
const SIGNAL_NAMES = Object.fromEntries(Object.entries(osc.signals).map(([name, n]) => [n, name]));

class ForkedChild extends EventEmitter {
  constructor(wants) {
    super();
    this.pid = undefined;
    this.wants = wants; // the descriptors that come as connections
    this.streams = new Map();
    this.open = 0;
    this.exit = null;
    this.closed = false;
    this.handed = false;
    this.stdio = [];
  }

  /** The caller has its listeners on: from now on 'exit' and 'close' are emitted (late ones now). */
  handOver() {
    this.handed = true;
    if (this.exit) this.emit("exit", this.exit.code, this.exit.signal);
    this.maybeClose();
  }

  get stdin() {
    return this.stdio[0] ?? null;
  }
  get stdout() {
    return this.stdio[1] ?? null;
  }
  get stderr() {
    return this.stdio[2] ?? null;
  }

  ready() {
    return this.pid !== undefined && this.wants.every((fd) => this.streams.has(fd));
  }

  attach(fd, sock) {
    this.streams.set(fd, sock);
    this.stdio[fd] = sock;
    this.open++;
    sock.on("error", () => {});
    // Nothing is read from stdin's connection, but its end must be seen for it to close.
    if (fd === 0) sock.resume();
    sock.once("close", () => {
      this.open--;
      this.maybeClose();
    });
  }

  exited(code, signal) {
    if (this.exit) return;
    this.exit = { code, signal };
    if (!this.handed) return;
    this.emit("exit", code, signal);
    this.maybeClose();
  }

  maybeClose() {
    if (this.closed || !this.handed || !this.exit || this.open > 0) return;
    this.closed = true;
    this.emit("close", this.exit.code, this.exit.signal);
  }
}

export class ForkServer {
  constructor() {
    this.proc = null;
    this.server = null;
    this.dir = null;
    this.seq = 0;
    this.pending = new Map(); // id → { child, resolve, reject, timer }
    this.byPid = new Map(); // pid → ForkedChild, until it exited
    this.kills = new Map(); // id → resolve(ok)
  }

  /** Starts the spawner when the image has one; resolves either way (false: not available). */
  async start(bin = SPAWNER_BIN) {
    if (!existsSync(bin)) return false;
    try {
      // mkdtemp makes the directory 0700 and ours (uid 0): no sandbox identity can connect.
      this.dir = mkdtempSync("/tmp/.toolshed-spawn-");
      const socketPath = path.join(this.dir, "s");
      this.server = createServer((sock) => this.accept(sock));
      await new Promise((resolve, reject) => {
        this.server.once("error", reject);
        this.server.listen(socketPath, resolve);
      });
      this.server.on("error", () => {});
      const proc = nodeSpawn(bin, [socketPath], { stdio: ["pipe", "pipe", "ignore"] });
      proc.on("error", () => this.lost());
      proc.once("exit", () => this.lost());
      proc.stdin.on("error", () => {});
      this.proc = proc;
      let rest = "";
      proc.stdout.setEncoding("utf8");
      proc.stdout.on("data", (text) => {
        const lines = (rest + text).split("\n");
        rest = lines.pop();
        for (const line of lines) this.onLine(line);
      });
      return true;
    } catch {
      this.lost();
      return false;
    }
  }

  get available() {
    return this.proc !== null;
  }

  /**
   * Starts `argv` as uid/gid with exactly `env`, in its own session and process group, after
   * a chdir to `cwd` as that identity. `stdin` (boolean) asks for a stdin connection (else
   * /dev/null), `cwdFd` for descriptor 9. Resolves null when the fork server is unavailable;
   * rejects with an Error carrying `code` (errno name) when the command could not start.
   */
  spawn({ argv, env, uid, gid, cwd, stdin, cwdFd }) {
    if (!this.proc) return Promise.resolve(null);
    const id = String(++this.seq);
    const wants = [1, 2, ...(stdin ? [0] : []), ...(cwdFd ? [CWD_FD] : [])];
    const child = new ForkedChild(wants);
    child.argv0 = argv[0];
    const envList = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    const fields = ["S", id, uid, gid, stdin ? 1 : 0, cwdFd ? 1 : 0, cwd, argv.length, ...argv];
    fields.push(envList.length, ...envList);
    if (fields.some((f) => String(f).includes("\0"))) {
      return Promise.reject(Object.assign(new Error("argument contains a NUL byte"), { code: "EINVAL" }));
    }
    return new Promise((resolve, reject) => {
      this.pending.set(id, { child, resolve, reject, timer: null });
      this.write(fields);
    });
  }

  /** SIGKILLs every process of uid; true when that ran, false when it could not start, null without a fork server. */
  killAll(uid, gid) {
    if (!this.proc) return Promise.resolve(null);
    const id = `k${++this.seq}`;
    return new Promise((resolve) => {
      this.kills.set(id, resolve);
      this.write(["K", id, uid, gid]);
    });
  }

  write(fields) {
    const body = Buffer.from(`${fields.join("\0")}\0`, "utf8");
    const head = Buffer.alloc(4);
    head.writeUInt32LE(body.length);
    this.proc.stdin.write(Buffer.concat([head, body]));
  }

  accept(sock) {
    sock.on("error", () => {});
    const onReadable = () => {
      const head = sock.read(HEADER);
      if (head === null) return;
      sock.removeListener("readable", onReadable);
      const [id, fdText] = head.toString("latin1").trim().split(" ");
      const fd = Number(fdText);
      const entry = this.pending.get(id);
      if (!entry?.child.wants.includes(fd) || entry.child.streams.has(fd)) {
        sock.destroy();
        return;
      }
      entry.child.attach(fd, sock);
      this.settle(id);
    };
    sock.on("readable", onReadable);
    sock.once("end", () => sock.removeListener("readable", onReadable));
  }

  onLine(line) {
    const [kind, a, b, c] = line.split(" ");
    if (kind === "P") {
      const entry = this.pending.get(a);
      if (!entry) return;
      entry.child.pid = Number(b);
      this.byPid.set(entry.child.pid, entry.child);
      entry.timer = setTimeout(() => this.brokenStart(a), STREAMS_TIMEOUT_MS);
      entry.timer.unref?.();
      this.settle(a);
    } else if (kind === "F") {
      const entry = this.pending.get(a);
      if (!entry) return;
      this.pending.delete(a);
      for (const s of entry.child.streams.values()) s.destroy();
      const errno = Number(b);
      const name = Object.entries(osc.errno).find(([, n]) => n === errno)?.[0] ?? "EIO";
      const what = c === "exec" ? `spawn ${entry.child.argv0 ?? ""}` : c;
      entry.reject(Object.assign(new Error(`${what} ${name}`.trim()), { code: name, stage: c }));
    } else if (kind === "X") {
      const child = this.byPid.get(Number(a));
      if (!child) return;
      this.byPid.delete(Number(a));
      const code = Number(b);
      const sig = Number(c);
      child.exited(sig ? null : code, sig ? (SIGNAL_NAMES[sig] ?? `SIG${sig}`) : null);
    } else if (kind === "K") {
      const resolve = this.kills.get(a);
      this.kills.delete(a);
      resolve?.(b === "1");
    }
  }

  settle(id) {
    const entry = this.pending.get(id);
    if (!entry?.child.ready()) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(entry.child);
  }

  /** A started command whose streams never all came: kill it and report it as not started. */
  brokenStart(id) {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    try {
      process.kill(-entry.child.pid, "SIGKILL");
    } catch {}
    for (const s of entry.child.streams.values()) s.destroy();
    entry.reject(Object.assign(new Error("the command's streams did not connect"), { code: "EIO" }));
  }

  /** The spawner is gone: nothing more goes through it; what it started ends as unknown. */
  lost() {
    if (this.proc === null && this.server === null) return;
    this.proc = null;
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(Object.assign(new Error("the fork server stopped"), { code: "EIO" }));
      this.pending.delete(id);
    }
    for (const child of this.byPid.values()) child.exited(null, null);
    this.byPid.clear();
    for (const resolve of this.kills.values()) resolve(false);
    this.kills.clear();
    this.server?.close();
    this.server = null;
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The executor's one fork server (executor.mjs starts it). */
export const forkServer = new ForkServer();
