/**
 * Records every TCP connect this process starts, and stops any to an address that is not
 * loopback before a packet leaves: the SSRF tests must never reach a real address, even when the
 * code under test (the in-process service) would try.
 */
import net from "node:net";

export interface ConnectAttempt {
  host: string;
  port: number;
  /** Not loopback: destroyed by the guard before connecting. */
  stopped: boolean;
}

const LOOPBACK =
  /^(localhost|127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+|::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4})$/i;

export function guardConnects(): { attempts: ConnectAttempt[]; restore(): void } {
  const original = net.Socket.prototype.connect;
  const attempts: ConnectAttempt[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: connect's overloads (net.connect passes one normalised array)
  net.Socket.prototype.connect = function (this: net.Socket, ...args: any[]) {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const opts = typeof first === "object" && first !== null ? first : { port: first, host: args[1] };
    if (typeof opts.path !== "string" && typeof first !== "string") {
      const host = String(opts.host ?? "localhost").replace(/^\[(.*)\]$/, "$1");
      const stopped = !LOOPBACK.test(host);
      attempts.push({ host, port: Number(opts.port), stopped });
      if (stopped) {
        process.nextTick(() => this.destroy(new Error(`test guard: no connection to ${host}`)));
        return this;
      }
    }
    return original.apply(this, args as Parameters<typeof original>);
  } as typeof original;
  return {
    attempts,
    restore: () => {
      net.Socket.prototype.connect = original;
    },
  };
}
