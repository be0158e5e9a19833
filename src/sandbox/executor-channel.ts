import { createHash, timingSafeEqual } from "node:crypto";
import { chmod, unlink } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { LineSplitter } from "./line-splitter.js";

/** No executor connection arrived in time (the container is stopped, starting or broken). */
export class ExecutorUnreachableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExecutorUnreachableError";
  }
}

/**
 * The connection closed before the executor acknowledged the request (it had just died): nothing
 * ran, so the caller may safely retry on another connection.
 */
export class RequestNotDeliveredError extends Error {
  constructor() {
    super("executor connection closed before the request was acknowledged");
    this.name = "RequestNotDeliveredError";
  }
}

// The executor keeps two spares dialled (and, protocol 3, an answered connection is a spare
// again); more than this idle means something odd is connecting.
const MAX_IDLE = 4;
/**
 * Emitted on a taken connection by the request that used it once its answer came in whole: the
 * connection goes back to the pool when its executor speaks protocol 3 (it takes another request
 * on it), else it is closed. A connection a request gives up on (error, cancel) is destroyed.
 */
export const CONNECTION_DONE = "toolshed-done";
// When every connection of a session is gone the executor is dead or stopped; it would redial
// within ~20 ms after a request took its spare, so don't wait long before calling it unreachable.
const DEAD_GRACE_MS = 300;
// A connection must prove itself quickly; the executor says hello as soon as it connects.
const HELLO_TIMEOUT_MS = 2_000;
const MAX_HELLO_BYTES = 1024;
// Connections still to say hello; past this many, new ones are dropped unread.
const MAX_UNPROVEN = 8;

interface Waiter {
  resolve(sock: Socket): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The host end of one session's executor: a unix socket the host listens on, in a directory the
 * container sees read-only, and the pool of idle connections the executor has dialled.
 * `take()` on a warm session is synchronous work: no Docker call, no connect.
 */
export class ExecutorChannel {
  /** The boot id of the executor that last proved itself (changes when the container restarts). */
  bootId: string | undefined;
  /** Connections refused: a wrong secret, no hello in time, or too many at once. */
  refused = 0;
  /** Connections proven (each a dial of the executor): grows with requests only before protocol 3. */
  proven = 0;
  private unproven = 0;
  private readonly idle: Socket[] = [];
  /** Each proven connection's guard against data while it is idle. */
  private readonly strays = new WeakMap<Socket, () => void>();
  /** Every open connection, idle or taken: long-lived processes hold theirs until closed. */
  private readonly sockets = new Set<Socket>();
  private readonly waiters: Waiter[] = [];
  private open = 0;
  private closed = false;

  private constructor(
    private readonly server: Server,
    private readonly tokenDigest: Buffer,
  ) {
    server.on("connection", (sock) => this.prove(sock));
  }

  /**
   * Listens at `socketPath` (replacing a stale socket file), reachable by its owner alone: the
   * container's uid 0, which only the executor runs as. Every connection must then open with a
   * hello carrying `token` (the container's secret) before it is trusted with a request.
   */
  static async listen(socketPath: string, token: string): Promise<ExecutorChannel> {
    await unlink(socketPath).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOENT") throw err;
    });
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => {
        server.off("error", reject);
        resolve();
      });
    });
    await chmod(socketPath, 0o600);
    return new ExecutorChannel(server, digest(token));
  }

  /** Whether the executor currently holds at least one connection. */
  get connected(): boolean {
    return this.open > 0;
  }

  /**
   * An idle executor connection, dedicated to one request: the caller emits CONNECTION_DONE on
   * it once answered whole (its listeners removed), or destroys it.
   */
  take(timeoutMs: number): Promise<Socket> {
    for (let sock = this.idle.shift(); sock; sock = this.idle.shift()) {
      if (sock.destroyed || !sock.writable) continue;
      sock.off("data", this.strays.get(sock)!);
      return Promise.resolve(sock);
    }
    if (this.closed) return Promise.reject(new ExecutorUnreachableError("channel closed"));
    const wait = this.open === 0 ? Math.min(timeoutMs, DEAD_GRACE_MS) : timeoutMs;
    return this.wait(wait);
  }

  /** Resolves once the executor has dialled in (after a container start). */
  async ready(timeoutMs: number): Promise<void> {
    if (this.idle.length > 0) return;
    const sock = await this.wait(timeoutMs);
    sock.on("data", this.strays.get(sock)!);
    this.idle.unshift(sock);
  }

  /** Stops listening and drops every connection (running requests see a closed socket). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new ExecutorUnreachableError("channel closed"));
    }
    this.idle.length = 0;
    // server.close waits for open connections; a spawned process's would keep it waiting forever.
    for (const sock of this.sockets) sock.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private wait(timeoutMs: number): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(new ExecutorUnreachableError(`no executor connection within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** The last connection went away: callers already waiting should not sit out their timeout. */
  private failWaitersUnlessRedialled(): void {
    setTimeout(() => {
      if (this.open > 0) return;
      for (const w of this.waiters.splice(0)) {
        clearTimeout(w.timer);
        w.reject(new ExecutorUnreachableError("the executor closed every connection"));
      }
    }, DEAD_GRACE_MS).unref();
  }

  /** Reads the hello line; only a connection with the right secret joins the pool. */
  private prove(sock: Socket): void {
    sock.on("error", () => {});
    if (this.closed || this.unproven >= MAX_UNPROVEN) {
      this.refused++;
      sock.destroy();
      return;
    }
    this.unproven++;
    let done = false;
    const finish = (hello: Record<string, unknown> | null) => {
      if (done) return;
      done = true;
      this.unproven--;
      clearTimeout(timer);
      sock.off("data", onData);
      const token = typeof hello?.token === "string" ? hello.token : "";
      if (!hello || typeof hello.boot !== "string" || !timingSafeEqual(digest(token), this.tokenDigest)) {
        this.refused++;
        sock.destroy();
        return;
      }
      this.bootId = hello.boot;
      this.proven++;
      this.accept(sock, typeof hello.v === "number" && hello.v >= 3);
    };
    const timer = setTimeout(() => finish(null), HELLO_TIMEOUT_MS);
    // The executor sends nothing after its hello until it gets a request: one line, then stop.
    const splitter = new LineSplitter(MAX_HELLO_BYTES, (line) => finish(parseHello(line)));
    const onData = (chunk: Buffer) => {
      try {
        splitter.push(chunk);
      } catch {
        finish(null);
      }
    };
    sock.on("data", onData);
    sock.once("close", () => finish(null));
  }

  private accept(sock: Socket, reusable: boolean): void {
    if (this.closed) {
      sock.destroy();
      return;
    }
    this.open++;
    this.sockets.add(sock);
    sock.once("close", () => {
      this.open--;
      this.sockets.delete(sock);
      const i = this.idle.indexOf(sock);
      if (i !== -1) this.idle.splice(i, 1);
      if (this.open === 0) this.failWaitersUnlessRedialled();
    });
    sock.on("error", () => {});
    // An idle connection hears nothing from its executor: anything that comes is out of turn
    // (it would read as the answer to the next request), and the connection is dropped.
    const stray = () => sock.destroy();
    this.strays.set(sock, stray);
    sock.on(CONNECTION_DONE, () => (reusable ? this.giveBack(sock) : sock.destroy()));
    this.offer(sock);
  }

  /** An idle connection goes to the oldest waiter, else to the pool (bounded). */
  private offer(sock: Socket): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.resolve(sock);
      return;
    }
    sock.on("data", this.strays.get(sock)!);
    this.idle.push(sock);
    if (this.idle.length > MAX_IDLE) this.idle.shift()?.destroy();
  }

  private giveBack(sock: Socket): void {
    if (this.closed || sock.destroyed || !sock.writable) sock.destroy();
    else this.offer(sock);
  }
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

function parseHello(line: string): Record<string, unknown> | null {
  try {
    const msg: unknown = JSON.parse(line);
    if (typeof msg !== "object" || msg === null) return null;
    return (msg as Record<string, unknown>).t === "hello" ? (msg as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
