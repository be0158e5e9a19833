// One command run by the executor: spawned under its identity in its own process group, output
// capped and streamed to whichever host connection is attached (a worker that took the job over
// attaches again), killed whole on timeout or cancel, and ended with one "x" message.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants as osc } from "node:os";
import { StringDecoder } from "node:string_decoder";
import { forkServer, SPAWNER_LOST } from "./fork-server.mjs";
import { killUid, processesOf } from "./processes.mjs";
import { userEnv, userEnvList } from "./user-env.mjs";
import { writeNow } from "./write-now.mjs";

// After a kill, wait this long for stragglers still holding the pipes.
const KILL_GRACE_MS = 1000;
// setTimeout fires at once past 2^31-1 ms; a longer timeout means "about 24 days".
const MAX_TIMER_MS = 2 ** 31 - 1;
// Bash's EXIT trap writes the final working directory to this descriptor (see the Bash tool).
export const CWD_FD = 9;
const MAX_CWD_BYTES = 4096;
const MAX_LEFTOVERS_LISTED = 20;
// Said on stderr when the fork server died under a command (or before it told the command's
// start): how the command ended cannot be known, and the agent must not take it as not run.
const LOST_NOTE =
  "toolshed: the sandbox's process starter stopped before this command's end was seen: its exit status is unknown and it may have partly run (a process it left running is listed as left running).\n";

export const clamp = (n, lo, hi) => Math.min(Math.max(Number.isFinite(n) ? Math.floor(n) : lo, lo), hi);

/** Starts argv under `who` in its own process group (so that it can be killed whole). */
export function spawnAs(who, req, stdio, resolveCwd) {
  return spawn(req.argv[0], req.argv.slice(1), {
    cwd: resolveCwd(req.cwd),
    env: userEnv(who.identity, who.name, req.env),
    uid: who.uid,
    gid: who.gid,
    detached: true,
    stdio,
  });
}

export class ExecRun {
  /**
   * @param req the exec request; `as` is "agent" or "reader"
   * @param who { name, uid, gid, identity, release? } — release() gives a leased uid back
   * @param opts { keyed, resolveCwd(path) → container path, onKept(bytes), leftovers: the agent
   *   processes already reported as left running (a Set of pids the executor keeps) }
   */
  constructor(req, who, opts) {
    this.req = req;
    this.who = who;
    this.keyed = opts.keyed;
    this.onKept = opts.onKept ?? (() => {});
    this.events = [];
    this.final = null;
    this.sub = null;
    this.killedFor = null;
    this.exit = null;
    this.truncated = false;
    this.cwdText = "";
    this.startedAt = Date.now();
    this.max = clamp(req.maxOutputBytes, 0, Number.MAX_SAFE_INTEGER);
    // A stream's decoder is made when its first output comes (most commands write to one or none).
    this.streams = [
      { s: 1, bytes: 0, cut: false, decoder: null },
      { s: 2, bytes: 0, cut: false, decoder: null },
    ];
    this.leftovers = opts.leftovers;
    this.start(opts.resolveCwd);
  }

  /** Attaches a host connection; a re-attach first replays what was kept, marked `r`. */
  attach(sock, replay) {
    if (replay) for (const ev of this.events) send(sock, { ...ev, r: 1 });
    if (this.final) return reply(sock, this.final);
    if (this.sub && this.sub !== sock) this.sub.destroy();
    this.sub = sock;
    const onCancel = () => this.kill("cancel");
    const onClose = () => {
      if (this.sub !== sock) return;
      this.sub = null;
      // A keyed call belongs to its job, not to this connection: it runs on until a worker
      // re-attaches or its timeout. Unkeyed calls (library use) end with their connection.
      if (!this.keyed) this.kill("cancel");
    };
    sock.on("toolshed-cancel", onCancel);
    sock.once("close", onClose);
    // Answered: the connection may serve another request, which these must not hear.
    this.detach = () => {
      sock.off("toolshed-cancel", onCancel);
      sock.off("close", onClose);
    };
  }

  start(resolveCwd) {
    const { req, who } = this;
    if (!forkServer.available) return this.startNode(resolveCwd);
    let cwd;
    try {
      cwd = resolveCwd(req.cwd);
    } catch (err) {
      return this.failed(err, resolveCwd);
    }
    // Through the fork server: the same identity, environment, session and streams, without
    // forking this process. Null means it went away meanwhile: Node's spawn then, as without it.
    forkServer.begin(
      {
        argv: req.argv,
        env: userEnvList(who.identity, who.name, req.env),
        uid: who.uid,
        gid: who.gid,
        cwd,
        stdin: typeof req.stdin === "string" ? req.stdin : undefined,
        cwdFd: req.cwdFd === true,
      },
      (err, child) => {
        if (err?.code === SPAWNER_LOST) return this.final ? this.who.release?.() : this.lostStart();
        if (err) return this.final ? this.who.release?.() : this.failed(err, resolveCwd);
        return child ? this.wire(child) : this.startNode(resolveCwd);
      },
    );
    // The timeout runs from the request: a start that hangs in the fork server still ends. Armed
    // once the start is on its way (a timer costs more than the frame: it is not on the path).
    // (`begin` tells nothing within the call: the timer is always on before the start is known.)
    this.timer = setTimeout(() => this.kill("timeout"), clamp(req.timeoutMs, 1, MAX_TIMER_MS));
  }

  startNode(resolveCwd) {
    const { req, who } = this;
    const stdio = [typeof req.stdin === "string" ? "pipe" : "ignore", "pipe", "pipe"];
    if (req.cwdFd === true)
      while (stdio.length <= CWD_FD) stdio.push(stdio.length === CWD_FD ? "pipe" : "ignore");
    let child;
    try {
      child = spawnAs(who, req, stdio, resolveCwd);
    } catch (err) {
      return this.failed(err, resolveCwd);
    }
    child.on("error", (err) => {
      if (child.pid === undefined) this.failed(err, resolveCwd);
    });
    if (child.pid === undefined) return;
    this.wire(child);
  }

  /** Streams, timeout and exit of a started child (Node's, or the fork server's look-alike). */
  wire(child) {
    const { req, who } = this;
    this.child = child;
    if (this.final) return this.lateStart();
    if (child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(req.stdin);
    }
    child.stdout.on("data", (buf) => this.output(this.streams[0], buf));
    child.stderr.on("data", (buf) => this.output(this.streams[1], buf));
    const cwdPipe = child.stdio[CWD_FD];
    cwdPipe?.on("data", (buf) => {
      if (this.cwdText.length < MAX_CWD_BYTES) this.cwdText += buf.toString("utf8");
    });
    this.timer ??= setTimeout(() => this.kill("timeout"), clamp(req.timeoutMs, 1, MAX_TIMER_MS));
    child.once("exit", (code, signal) => {
      this.exit = { code, signal };
      // Nothing a reader or editor starts may outlive its call: once the command itself is done,
      // whatever it left behind (holding the pipes or not) goes now rather than at the timeout.
      if (who.name !== "agent" && !this.killing) this.killing = killUid(who.uid, who.gid);
    });
    child.once("close", (code, signal) => {
      this.exit ??= { code, signal };
      this.finish();
    });
    // A timeout or cancel that came while the command was being started applies now, before the
    // hand-over: that may give the command's whole end, and an agent call that ended by itself is
    // answered in that turn (finish), which a kill applied after it would no longer change.
    if (this.killPending) this.kill(this.killPending);
    child.handOver?.();
  }

  output(st, buf) {
    if (st.bytes >= this.max) {
      this.truncated = st.cut = true;
      return;
    }
    const take = buf.length <= this.max - st.bytes ? buf : buf.subarray(0, this.max - st.bytes);
    if (take !== buf) this.truncated = st.cut = true;
    st.bytes += take.length;
    st.decoder ??= new StringDecoder("utf8");
    const text = st.decoder.write(take);
    if (text) this.emit({ t: "o", s: st.s, d: text });
  }

  emit(ev) {
    if (this.keyed) {
      this.events.push(ev);
      this.onKept(ev.d.length);
    }
    if (this.sub) sendBatched(this.sub, ev);
  }

  kill(reason) {
    if (this.killedFor || this.final) return;
    if (!this.child) {
      // Applied as soon as the command has started (wire); if the start itself hangs, the call
      // ends without it after the grace, and a command that starts later is killed at once.
      this.killPending = reason;
      setTimeout(() => {
        if (!this.child && !this.final) this.endUnstarted(reason);
      }, KILL_GRACE_MS).unref();
      return;
    }
    this.killedFor = reason;
    try {
      process.kill(-this.child.pid, "SIGKILL");
    } catch {}
    // Whatever detached from the group is still the identity's: end every process of it.
    this.killing = killUid(this.who.uid, this.who.gid);
    setTimeout(() => {
      this.child.stdout.destroy();
      this.child.stderr.destroy();
      this.child.stdio[CWD_FD]?.destroy();
      this.finish();
    }, KILL_GRACE_MS).unref();
  }

  finish() {
    if (this.finishing) return;
    this.finishing = true;
    for (let i = 0; i < this.streams.length; i++) {
      const st = this.streams[i];
      // A character split by the cap is dropped rather than sent as U+FFFD.
      const rest = st.cut || !st.decoder ? "" : st.decoder.end();
      if (rest) this.emit({ t: "o", s: st.s, d: rest });
    }
    // How it ended is as of now: a cancel that comes while its processes are settled changes nothing.
    const { exit, killedFor } = this;
    // An agent call that ended by itself waits for nothing: its answer goes in this turn.
    if (this.who.name === "agent" && !killedFor && !this.killing)
      return this.answer(exit, killedFor, this.survivors());
    // No timeout while its processes are settled (conclude clears it too, after the answer).
    clearTimeout(this.timer);
    this.settleProcesses().then((extra) => this.answer(exit, killedFor, extra));
  }

  answer(exit, killedFor, extra) {
    let exitCode = null;
    // Neither code nor signal: the fork server died under it, and how it ended is unknown.
    const known = exit && (exit.code !== null || exit.signal !== null);
    if (!known && !killedFor) this.emit({ t: "o", s: 2, d: LOST_NOTE });
    if (known && !(killedFor && exit.signal === "SIGKILL")) {
      exitCode = exit.code ?? 128 + (osc.signals[exit.signal] ?? 0);
    }
    const cwd = this.cwdText.trim();
    this.conclude({
      t: "x",
      exitCode,
      timedOut: killedFor === "timeout",
      cancelled: killedFor === "cancel",
      truncated: this.truncated,
      durationMs: Date.now() - this.startedAt,
      ...(cwd && !cwd.includes("\n") ? { cwd } : {}),
      ...extra,
    });
  }

  /**
   * After the command: a read-only call's uid is emptied (nothing it started may outlive it);
   * an agent call's new survivors are reported and live on until the session stops, unless the
   * call was killed, in which case every process of the agent is gone already.
   */
  async settleProcesses() {
    const { who } = this;
    // One kill at a time: two killers of the same uid would kill each other.
    const first = (await this.killing) ?? 0;
    if (who.name !== "agent" || this.killedFor) {
      // The look at the command's exit found the uid empty: none of its processes was left to
      // start another, and the uid is this call's until released, so it is empty still.
      const emptied = this.killing !== undefined && first === 0 && !this.killedFor;
      const killed = emptied ? 0 : Math.max(first, await killUid(who.uid, who.gid));
      if (who.name === "agent") this.leftovers.clear();
      await who.release?.();
      return killed > 0 ? { killed } : {};
    }
    return this.survivors();
  }

  /**
   * An agent call's new survivors, in one scan: what runs now and was not reported before is this
   * call's. The agent's calls do not overlap (a session runs them one at a time), so nothing else
   * can have started it.
   */
  survivors() {
    const alive = processesOf(this.who.uid);
    const left = [...alive].filter(([pid]) => !this.leftovers.has(pid));
    this.leftovers.clear();
    for (const pid of alive.keys()) this.leftovers.add(pid);
    if (left.length === 0) return {};
    return {
      leftover: left.slice(0, MAX_LEFTOVERS_LISTED).map(([pid, cmd]) => ({ pid, cmd })),
      leftoverCount: left.length,
    };
  }

  /**
   * The fork server died before it said whether it started the command: it may have, so the call
   * ends as one whose exit is unknown (LOST_NOTE), its processes settled as after any end.
   */
  lostStart() {
    this.exit = { code: null, signal: null };
    this.finish();
  }

  /** Timed out or cancelled before the fork server answered; the uid stays leased until then. */
  endUnstarted(reason) {
    this.conclude({
      t: "x",
      exitCode: null,
      timedOut: reason === "timeout",
      cancelled: reason === "cancel",
      truncated: false,
      durationMs: Date.now() - this.startedAt,
    });
  }

  /** The command started after its call had ended: it and its uid's processes go at once. */
  async lateStart() {
    const { child, who } = this;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    for (const s of child.stdio) s?.destroy?.();
    child.handOver?.();
    if (who.name !== "agent") await killUid(who.uid, who.gid);
    await who.release?.();
  }

  failed(err, resolveCwd) {
    // Node reports a missing cwd as the program missing; say which it was.
    let message = err.message;
    try {
      if (this.req.cwd && !existsSync(resolveCwd(this.req.cwd)))
        message = `cwd ${this.req.cwd}: no such directory`;
    } catch {}
    this.emit({ t: "o", s: 2, d: `${message}\n` });
    this.who.release?.();
    this.conclude({
      t: "x",
      exitCode: 127,
      timedOut: false,
      cancelled: false,
      truncated: false,
      durationMs: Date.now() - this.startedAt,
    });
  }

  conclude(final) {
    if (this.final) return;
    this.final = final;
    // The answer first: what follows is the executor's own bookkeeping, which the host does not
    // wait for (nothing else can run before it is done: it is all in this turn). A timer that
    // fires meanwhile finds the call final (kill returns).
    const sub = this.sub;
    this.sub = null;
    if (sub) reply(sub, final);
    clearTimeout(this.timer);
    if (sub) this.detach?.();
    this.onDone?.();
  }
}

export function send(sock, msg) {
  if (!sock.destroyed) writeNow(sock, `${JSON.stringify(msg)}\n`);
}

/**
 * A command's output: held until the callback that produced it and the promise jobs it set off
 * are over (a tick: after the microtasks that follow), so that its chunks and the answer that
 * often follows from them (the fork server sends a short command's output and exit together, in
 * one read) reach the host in one write, which it reads in one wake-up.
 */
function sendBatched(sock, msg) {
  if (sock.destroyed) return;
  const line = `${JSON.stringify(msg)}\n`;
  if (sock.toolshedHeld === undefined) {
    sock.toolshedHeld = line;
    process.nextTick(flushHeld, sock);
  } else {
    sock.toolshedHeld += line;
  }
}

/** What sendBatched holds for `sock` (taken: the caller writes it), or "". */
function takeHeld(sock) {
  const held = sock.toolshedHeld;
  if (held === undefined) return "";
  sock.toolshedHeld = undefined;
  return held;
}

function flushHeld(sock) {
  const held = takeHeld(sock);
  if (held && !sock.destroyed) writeNow(sock, held);
}

/** The message that ends a request. */
export function reply(sock, msg) {
  replyLine(sock, JSON.stringify(msg));
}

/**
 * Ends a request with `line` (after the output held for it): the connection stays open for the
 * next one where the executor offered that (`toolshedDone`), else it is closed after the line.
 */
export function replyLine(sock, line) {
  if (sock.destroyed) return;
  const text = `${takeHeld(sock)}${line}\n`;
  if (sock.toolshedDone) sock.toolshedDone(text);
  else sock.end(text);
}
