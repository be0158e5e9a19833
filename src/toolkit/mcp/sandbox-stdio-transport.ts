/**
 * An MCP SDK `Transport` over a process inside the session's sandbox (`Sandbox.spawnProcess`):
 * stdio MCP servers never run on the host. Messages are newline-delimited JSON, as in the SDK's
 * own stdio transport; stderr is kept (the tail) to explain a server that dies.
 */
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Sandbox, SandboxProcess, SpawnRequest } from "../../sandbox/sandbox.js";

const STDERR_TAIL_CHARS = 2_000;
/**
 * The longest message (one line) a server may write: the worker holds a line until its newline,
 * so a server that never writes one is killed here rather than growing the worker's memory.
 */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** Where and how to start the server. */
export type SandboxStdioParams = Omit<SpawnRequest, "onOutput">;

export class SandboxStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private proc: SandboxProcess | null = null;
  private readonly buffer = new ReadBuffer();
  private stderr = "";
  private closed = false;
  /** Bytes since the last newline on stdout (what the read buffer holds, at most). */
  private pending = 0;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly params: SandboxStdioParams,
  ) {}

  /** The last lines the server wrote to stderr (for error messages). */
  get stderrTail(): string {
    return this.stderr;
  }

  async start(): Promise<void> {
    if (this.proc) throw new Error("SandboxStdioTransport already started");
    if (!this.sandbox.spawnProcess) throw new Error("this sandbox cannot run stdio MCP servers");
    this.proc = await this.sandbox.spawnProcess({
      ...this.params,
      onOutput: (stream, data) => (stream === "stdout" ? this.onStdout(data) : this.onStderr(data)),
    });
    void this.proc.exited.then((exit) => {
      if (!this.closed && (exit.lost || exit.exitCode !== 0)) {
        const why = exit.lost ? "the sandbox stopped" : `exit code ${exit.exitCode}`;
        this.onerror?.(new Error(`MCP server process ended (${why})${this.tailNote()}`));
      }
      this.finish();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.proc || this.closed) throw new Error("MCP server process is not running");
    this.proc.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.proc?.kill();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }

  private onStdout(data: string): void {
    if (this.closed) return;
    const bytes = Buffer.from(data, "utf8");
    const nl = bytes.lastIndexOf(10);
    this.pending = nl === -1 ? this.pending + bytes.length : bytes.length - nl - 1;
    if (this.pending > MAX_MESSAGE_BYTES) {
      this.onerror?.(
        new Error(`MCP server wrote a message longer than ${MAX_MESSAGE_BYTES} bytes; it was stopped`),
      );
      void this.close();
      return;
    }
    this.buffer.append(bytes);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (err) {
        // A non-JSON line (a chatty server): report it and go on with the next line.
        this.onerror?.(err as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private onStderr(data: string): void {
    this.stderr = (this.stderr + data).slice(-STDERR_TAIL_CHARS);
  }

  private tailNote(): string {
    const tail = this.stderr.trim().split("\n").slice(-3).join(" | ");
    return tail ? `: ${tail}` : "";
  }
}
