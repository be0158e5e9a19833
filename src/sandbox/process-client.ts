/**
 * The host end of the executor's `spawn` request: a long-lived process streaming both ways on
 * one dedicated connection (stdio MCP servers run this way, inside the session's sandbox).
 */
import type { Socket } from "node:net";
import { RequestNotDeliveredError } from "./executor-channel.js";
import { LineSplitter } from "./line-splitter.js";
import {
  type ProcessExit,
  type SandboxProcess,
  SandboxUnavailableError,
  type SpawnRequest,
} from "./sandbox.js";

// Output arrives in pipe-sized pieces (≤ 64 KiB, ≤ 6× that once JSON-escaped).
const LINE_BYTES = 1024 * 1024;
const ACK_TIMEOUT_MS = 30_000;

/** Sends the spawn request; resolves with the process once the executor has it. */
export function spawnOverSocket(sock: Socket, req: SpawnRequest): Promise<SandboxProcess> {
  return new Promise((resolve, reject) => {
    let acked = false;
    let resolveExit: (exit: ProcessExit) => void = () => {};
    const exited = new Promise<ProcessExit>((r) => (resolveExit = r));
    const send = (msg: Record<string, unknown>) => {
      if (!sock.destroyed && sock.writable) sock.write(`${JSON.stringify(msg)}\n`);
    };
    const proc: SandboxProcess = {
      write: (d) => send({ op: "stdin", d }),
      end: () => send({ op: "eof" }),
      kill: () => {
        send({ op: "kill" });
        // The executor also kills the group when the connection drops; don't wait on it.
        setTimeout(() => sock.destroy(), 2_000).unref();
      },
      exited,
    };
    const fail = (err: Error) => {
      clearTimeout(ackTimer);
      sock.destroy();
      reject(err);
    };
    const ackTimer = setTimeout(
      () => fail(new SandboxUnavailableError("executor did not acknowledge spawn in time")),
      ACK_TIMEOUT_MS,
    );

    const splitter = new LineSplitter(LINE_BYTES, (line) => {
      const msg = parse(line);
      if (msg?.t === "a" && !acked) {
        acked = true;
        clearTimeout(ackTimer);
        resolve(proc);
      } else if (msg?.t === "o" && typeof msg.d === "string") {
        try {
          req.onOutput(msg.s === 1 ? "stdout" : "stderr", msg.d);
        } catch {
          // A throwing listener must not break the protocol.
        }
      } else if (msg?.t === "x") {
        const exitCode = typeof msg.exitCode === "number" ? msg.exitCode : null;
        resolveExit({ exitCode, signal: typeof msg.signal === "string" ? msg.signal : null, lost: false });
        sock.destroy();
      } else {
        sock.destroy();
      }
    });
    sock.on("data", (chunk: Buffer) => {
      try {
        splitter.push(chunk);
      } catch {
        sock.destroy();
      }
    });
    sock.once("close", () => {
      if (!acked) fail(new RequestNotDeliveredError());
      resolveExit({ exitCode: null, signal: null, lost: true });
    });
    const { argv, cwd, env } = req;
    send({ op: "spawn", argv, cwd, env });
  });
}

function parse(line: string): Record<string, unknown> | null {
  try {
    const msg: unknown = JSON.parse(line);
    return typeof msg === "object" && msg !== null ? (msg as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
