// The executor's end of the image's fork server (images/sandbox/spawner.c): a tiny process started
// once, which forks and execs commands on the executor's behalf, so that a command no longer pays
// a fork of this ~35 MiB Node process. Policy stays here (identity, environment, cwd, caps,
// timeouts, kills); the spawner only does what a request spells out. A command's streams are
// pipes held by the spawner, which relays their output over its own stdout (and writes the
// request's stdin for it): a start costs no connection, and a short command's start, output, end
// and exit arrive together.
// `spawn()` resolves to a ChildProcess look-alike (pid, stdout, stderr, stdio[9]; 'exit' then
// 'close'; stdin is given with the request), or null when the fork server is not there (an image
// without it, a spawner that died and is not back yet): the caller then uses Node's spawn.
// A spawner that dies (the OOM killer picks it: it is first in the OOM order; a crash) is started
// again, after a short backoff and at most RESTART_CAP times a minute: without it every later
// command would go through Node's spawn, at oom_score_adj 0, and the next OOM would pick the
// executor, taking the container with it.
import { spawn as nodeSpawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { constants as osc } from "node:os";
import { writeNow } from "./write-now.mjs";

export const SPAWNER_BIN = "/usr/local/libexec/toolshed-spawner";
/** The code of a start's error when the spawner died before it said whether the command started. */
export const SPAWNER_LOST = "ESPAWNERLOST";
const CWD_FD = 9;
const NL = 0x0a;
const PROC_PEEK = Buffer.alloc(512);
const PLAIN_FDS = [1, 2];
const WITH_CWD_FD = [1, 2, CWD_FD];
// An environment list's part of a start request (its count, then each NAME=value NUL-terminated),
// encoded once per list: an identity's base list is one array, call after call (user-env.mjs).
// Null when a variable holds a NUL byte.
const envFrames = new WeakMap();

function envFrame(env) {
  let bytes = envFrames.get(env);
  if (bytes === undefined) {
    bytes = env.some((e) => e.includes("\0"))
      ? null
      : Buffer.from(`${env.length}\0${env.map((e) => `${e}\0`).join("")}`, "utf8");
    envFrames.set(env, bytes);
  }
  return bytes;
}
// A lost spawner's restart: the first after RESTART_FIRST_MS, each further one within the window
// twice as late (a spawner that dies at once again is not restarted in a loop); once RESTART_CAP
// restarts fell within RESTART_WINDOW_MS, Node's spawn until the oldest of them is out of it.
const RESTART_FIRST_MS = 5;
const RESTART_CAP = 5;
const RESTART_WINDOW_MS = 60_000;
const SIGNAL_NAMES = Object.fromEntries(Object.entries(osc.signals).map(([name, n]) => [n, name]));

/**
 * One relayed stream of a forked command: what ExecRun uses of a Readable (`on("data")`,
 * `destroy()`), without a stream's machinery (its buffers, ticks and events cost more than the
 * whole of a short command's relay). Chunks and the end that come before the caller listens are
 * kept and given to it, in order, when the child is handed over.
 */
class Relay {
  constructor(child) {
    this.child = child;
    this.onData = null;
    this.kept = null; // chunks before the hand-over
    this.ended = false; // its E line came
    this.done = false; // ended and told, or destroyed
    this.destroyed = false;
  }

  on(event, fn) {
    if (event === "data") this.onData = fn;
    return this;
  }

  push(buf) {
    if (this.destroyed || this.ended) return;
    if (this.child.handed) this.onData?.(buf);
    else if (this.kept) this.kept.push(buf);
    else this.kept = [buf];
  }

  end() {
    if (this.destroyed || this.ended) return;
    this.ended = true;
    if (this.child.handed) this.finish();
  }

  /** The hand-over: what came before it, then its end if that came too. */
  flush() {
    const kept = this.kept;
    this.kept = null;
    if (kept && !this.destroyed) for (let i = 0; i < kept.length; i++) this.onData?.(kept[i]);
    if (this.ended) this.finish();
  }

  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.kept = null;
    this.finish();
  }

  finish() {
    if (this.done) return;
    this.done = true;
    this.child.streamDone();
  }
}

class ForkedChild extends EventEmitter {
  constructor(fds) {
    super();
    this.pid = undefined;
    this.stdio = [];
    // Each relayed stream is fed by O lines and ended by its E line; 'close' waits until every
    // one ended (or was destroyed), as Node's ChildProcess waits for its streams.
    this.open = fds.length;
    for (let i = 0; i < fds.length; i++) this.stdio[fds[i]] = new Relay(this);
    this.exit = null;
    this.closed = false;
    this.handed = false;
    this.handing = false;
    this.server = null; // the ForkServer that started it, once it did (its P line)
    this.requestId = null;
  }

  /**
   * The caller has its listeners on: what came meanwhile is given to it now (each stream's output
   * and end, in order; then the exit), and from now on as it comes.
   */
  handOver() {
    this.handed = true;
    // 'exit' before 'close', as Node's: a stream's end given now must not close it first.
    this.handing = true;
    for (let fd = 0; fd < this.stdio.length; fd++) this.stdio[fd]?.flush();
    if (this.exit) this.emit("exit", this.exit.code, this.exit.signal);
    this.handing = false;
    this.maybeClose();
  }

  get stdin() {
    return null;
  }
  get stdout() {
    return this.stdio[1];
  }
  get stderr() {
    return this.stdio[2];
  }

  data(fd, buf) {
    this.stdio[fd]?.push(buf);
  }

  ended(fd) {
    this.stdio[fd]?.end();
  }

  streamDone() {
    this.open--;
    this.maybeClose();
  }

  exited(code, signal) {
    if (this.exit) return;
    this.exit = { code, signal };
    if (!this.handed) return;
    this.emit("exit", code, signal);
    this.maybeClose();
  }

  maybeClose() {
    if (this.closed || !this.handed || this.handing || !this.exit || this.open > 0) return;
    this.closed = true;
    // Its O and E lines are over: the server forgets its request id (before anyone hears it closed).
    this.server?.byId.delete(this.requestId);
    this.emit("close", this.exit.code, this.exit.signal);
  }
}

/** Bytes read in one read() from the start of an open /proc file (generated again per read). */
function readProc(fd) {
  return readSync(fd, PROC_PEEK, 0, PROC_PEEK.length, 0);
}

export class ForkServer {
  constructor() {
    this.proc = null;
    this.seq = 0;
    this.pending = new Map(); // id → { child, done(err, child) }
    this.byPid = new Map(); // pid → ForkedChild, until it exited (X)
    this.byId = new Map(); // request id → ForkedChild, until its streams ended (O and E name the request)
    this.kills = new Map(); // id → resolve(ok)
    this.rest = null; // unparsed bytes of the spawner's output
    // The spawner's children list and statm, open once it said it adopts the commands' orphans
    // (R): they name the process, not its number, so once it is reaped they fail to read.
    this.adopted = null;
    // Its starts told so far (P lines), and that count when an X line last said it had no child
    // left (null: none did since).
    this.started = 0;
    this.aloneAt = null;
    // A spawner was lost: the orphans of its commands went to the init, where no children list of
    // a later spawner sees them, so nothingAlive() no longer answers from it (processes.mjs then
    // reads /proc, as without a fork server).
    this.strays = false;
    this.bin = null; // what start() ran, started again when lost
    this.restarts = []; // when each restart within the window ran (ms)
    this.restartTimer = null;
  }

  /** Starts the spawner when the image has one; resolves either way (false: not available). */
  async start(bin = SPAWNER_BIN) {
    if (!existsSync(bin)) return false;
    this.bin = bin;
    try {
      const proc = nodeSpawn(bin, [], { stdio: ["pipe", "pipe", "ignore"] });
      // Lost once its output is over ('close', after 'exit'): the lines it wrote before it died
      // (a command's last output, its exit) are read first. Only this spawner's own end counts:
      // a restarted one is another process with other listeners.
      const gone = () => this.proc === proc && this.lost();
      proc.on("error", gone);
      proc.once("close", gone);
      proc.stdin.on("error", () => {});
      proc.stdout.on("data", (buf) => this.proc === proc && this.onData(buf));
      this.proc = proc;
      return true;
    } catch {
      this.proc = null;
      this.restartLater();
      return false;
    }
  }

  /** A lost spawner's next start, bounded (RESTART_*): until it runs, commands use Node's spawn. */
  restartLater() {
    if (this.restartTimer || !this.bin) return;
    const now = Date.now();
    this.restarts = this.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
    const n = this.restarts.length;
    const delay = n >= RESTART_CAP ? this.restarts[0] + RESTART_WINDOW_MS - now : RESTART_FIRST_MS * 2 ** n;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.proc) return;
      this.restarts.push(Date.now());
      this.start(this.bin);
    }, delay);
    this.restartTimer.unref();
  }

  get available() {
    return this.proc !== null;
  }

  /** The spawner's pid while it runs (it is root's; processes.mjs skips it). */
  get pid() {
    return this.proc?.pid;
  }

  /**
   * True when nothing the spawner started (a command, or any process below one) is alive. It
   * adopts the commands' orphans, so a live one is its child or below one.
   * First, its own word: an X line says whether it had any child left once it reaped (`alone`).
   * That holds while it has started nothing since (a start after that reap is told by a P line
   * after that X line; one before it was among the children it no longer had) and no start is
   * on its way (one it made just before dying would be told by no P line): no /proc read.
   * Otherwise (no such word, an older spawner) its children list is read (one look under the
   * kernel's lock): not empty, something may be alive. That holds only while the spawner
   * itself has not exited (its children then went to the init), so whether it still has its
   * memory is read after the list: an exiting task lets its memory go (exit_mm) before it hands
   * its children on (exit_notify), and `statm` then reads all zeros, as a zombie's does. Memory
   * still there after the list was read means the list was still the spawner's own. (`statm` is
   * a few counters; `stat`, which says the state too, costs twice as much to read.) False when
   * that cannot be told (no spawner, an older one, a kernel without the list) or when it has
   * any child at all.
   */
  nothingAlive() {
    const pid = this.proc?.pid;
    // Neither proof without the children list: gVisor has none, and there the spawner's R and
    // `alone` mean nothing (it accepts the subreaper request but gives orphans to the init).
    if (!this.adopted || pid === undefined || this.strays) return false;
    // Told by the spawner itself: no child after its last reap, it started nothing since, and no
    // start is on its way (one it made just before it died would be told by no P line).
    if (this.aloneAt === this.started && this.pending.size === 0) return true;
    try {
      if (readProc(this.adopted.children) !== 0) return false;
      // "size resident shared text lib data dt" in pages: a live process's size is never 0.
      const n = readProc(this.adopted.statm);
      return n > 1 && PROC_PEEK[0] !== 0x30 /* 0 */;
    } catch {
      return false;
    }
  }

  /**
   * Starts `argv` as uid/gid with exactly `env` (NAME=value strings), in its own process group,
   * after a chdir to `cwd` as that identity. `stdin` (a string) is written to its stdin, then
   * closed (without it: /dev/null); `cwdFd` asks for descriptor 9. Resolves null when the fork
   * server is unavailable; rejects with an Error carrying `code` (errno name) when the command
   * could not start.
   */
  spawn(req) {
    return new Promise((resolve, reject) =>
      this.begin(req, (err, child) => (err ? reject(err) : resolve(child))),
    );
  }

  /**
   * spawn() with a callback, `done(err, child)`: called as the P line is read, in that turn and
   * before the lines read with it (the caller's listeners are then on before the command's end
   * comes: no promise job between, no lines kept for a hand-over). Never within this call: an
   * unavailable fork server (null) or a refused request is told in a microtask.
   */
  begin({ argv, env, uid, gid, cwd, stdin, cwdFd }, done) {
    if (!this.proc) return queueMicrotask(() => done(null, null));
    const envBytes = envFrame(env);
    if (envBytes === null || cwd.includes("\0") || argv.some((a) => a.includes("\0"))) {
      const err = Object.assign(new Error("argument contains a NUL byte"), { code: "EINVAL" });
      return queueMicrotask(() => done(err));
    }
    const id = String(++this.seq);
    const child = new ForkedChild(cwdFd ? WITH_CWD_FD : PLAIN_FDS);
    child.argv0 = argv[0];
    const input = typeof stdin === "string" ? Buffer.from(stdin, "utf8") : null;
    // S id uid gid cwdfd cwd argc argv..., then the environment's fields (envFrame), then stdinlen;
    // the stdin bytes follow that field raw, then the frame's final NUL.
    const head = `S\0${id}\0${uid}\0${gid}\0${cwdFd ? 1 : 0}\0${cwd}\0${argv.length}\0${argv.join("\0")}\0`;
    const tail = `${input ? input.length : -1}\0`;
    const headBytes = Buffer.byteLength(head);
    const length = headBytes + envBytes.length + tail.length + (input ? input.length : 0) + 1;
    const frame = Buffer.allocUnsafe(4 + length);
    frame.writeUInt32LE(length, 0);
    let at = 4 + frame.write(head, 4, "utf8");
    at += envBytes.copy(frame, at);
    at += frame.write(tail, at, "latin1");
    if (input) at += input.copy(frame, at);
    frame[at] = 0;
    this.pending.set(id, { child, done });
    writeNow(this.proc.stdin, frame);
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

  /** One frame: its length, then the fields each NUL-terminated. */
  write(fields) {
    const text = `${fields.join("\0")}\0`;
    const length = Buffer.byteLength(text);
    const frame = Buffer.allocUnsafe(4 + length);
    frame.writeUInt32LE(length, 0);
    frame.write(text, 4, "utf8");
    writeNow(this.proc.stdin, frame);
  }

  /** Lines, and after an O line exactly its byte count of a command's output. */
  onData(buf) {
    const data = this.rest ? Buffer.concat([this.rest, buf]) : buf;
    let at = 0;
    for (;;) {
      const nl = data.indexOf(NL, at);
      if (nl < 0) break;
      const line = data.toString("latin1", at, nl);
      if (line.charCodeAt(0) === 0x4f /* O */) {
        // Indexed, not destructured: a young executor runs this interpreted, where a destructuring
        // walks an iterator (objects made per field).
        const f = line.split(" ");
        const end = nl + 1 + Number(f[3]);
        if (end > data.length) break;
        this.byId.get(f[1])?.data(Number(f[2]), data.subarray(nl + 1, end));
        at = end;
        continue;
      }
      this.onLine(line);
      at = nl + 1;
    }
    this.rest = at < data.length ? Buffer.from(data.subarray(at)) : null;
  }

  onLine(line) {
    const f = line.split(" ");
    const kind = f[0];
    const a = f[1];
    const b = f[2];
    const c = f[3];
    if (kind === "P") {
      this.started++;
      const entry = this.pending.get(a);
      if (!entry) return;
      this.pending.delete(a);
      const { child } = entry;
      child.pid = Number(b);
      this.byPid.set(child.pid, child);
      this.byId.set(a, child);
      child.requestId = a;
      child.server = this;
      entry.done(null, child);
    } else if (kind === "F") {
      const entry = this.pending.get(a);
      if (!entry) return;
      this.pending.delete(a);
      const errno = Number(b);
      const name = Object.entries(osc.errno).find(([, n]) => n === errno)?.[0] ?? "EIO";
      const what = c === "exec" ? `spawn ${entry.child.argv0 ?? ""}` : c;
      entry.done(Object.assign(new Error(`${what} ${name}`.trim()), { code: name, stage: c }));
    } else if (kind === "E") {
      this.byId.get(a)?.ended(Number(b));
    } else if (kind === "X") {
      // Before the exit is told (its call looks for survivors as it closes), for any pid: the
      // word is about the spawner, orphans' exits included.
      if (f[4] === "1") this.aloneAt = this.started;
      else if (this.aloneAt === this.started) this.aloneAt = null;
      const child = this.byPid.get(Number(a));
      if (!child) return;
      this.byPid.delete(Number(a));
      const code = Number(b);
      const sig = Number(c);
      // Its streams may outlive it (a background process holding them): they go on by request id.
      child.exited(sig ? null : code, sig ? (SIGNAL_NAMES[sig] ?? `SIG${sig}`) : null);
    } else if (kind === "R") {
      const pid = this.proc?.pid;
      if (pid === undefined || this.adopted) return;
      try {
        const children = openSync(`/proc/${pid}/task/${pid}/children`, "r");
        this.adopted = { children, statm: openSync(`/proc/${pid}/statm`, "r") };
      } catch {
        // No such list (gVisor): /proc is read after each call, as without it.
      }
    } else if (kind === "K") {
      const resolve = this.kills.get(a);
      this.kills.delete(a);
      resolve?.(b === "1");
    }
  }

  /**
   * The spawner is gone: nothing more goes through it; what it started ends as unknown, and so
   * does a start it was asked for and never told (it may have run it: SPAWNER_LOST). Another
   * spawner is started later (restartLater).
   */
  lost() {
    if (this.proc === null && this.pending.size === 0 && this.byId.size === 0) return;
    // Orphans of its commands, if any (one it started just before dying is told by no P line).
    if (this.started > 0 || this.pending.size > 0) this.strays = true;
    this.proc = null;
    this.aloneAt = null;
    this.started = 0;
    if (this.adopted) {
      closeSync(this.adopted.children);
      closeSync(this.adopted.statm);
      this.adopted = null;
    }
    for (const [id, entry] of this.pending) {
      entry.done(Object.assign(new Error("the fork server stopped"), { code: SPAWNER_LOST }));
      this.pending.delete(id);
    }
    for (const child of this.byId.values()) {
      child.exited(null, null);
      for (const fd of [1, 2, CWD_FD]) child.ended(fd);
    }
    this.byPid.clear();
    this.byId.clear();
    for (const resolve of this.kills.values()) resolve(false);
    this.kills.clear();
    this.rest = null;
    this.restartLater();
  }
}

/** The executor's one fork server (executor.mjs starts it). */
export const forkServer = new ForkServer();
