/**
 * How a process that holds no sandboxes (an API) reaches the worker that holds a session's: a
 * BullMQ job on the session's host queue (placement when it has none, which pins it), answered
 * on a Redis list the asker waits on with `BLPOP`. Only stdio MCP listings and sandbox removal
 * go this way; calls go through the job rows and the queue as usual.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { SandboxUnavailableError } from "../sandbox/sandbox.js";
import type { SessionHostRpc } from "../service/sessions/mcp-clients.js";
import type { BullJobQueue } from "./queue.js";

type McpRawTool = Awaited<ReturnType<SessionHostRpc["listStdioTools"]>>[number];

export interface HostRpcOptions {
  prefix: string;
  timeoutMs: number;
  /** The session's host, from the rows. */
  hostOfSession(sessionId: string): Promise<string | null>;
}

export class RedisHostRpc implements SessionHostRpc {
  constructor(
    private readonly redis: Redis,
    private readonly queue: BullJobQueue,
    private readonly opts: HostRpcOptions,
  ) {}

  async listStdioTools(session: { id: string; tenantId: string }, server: string): Promise<McpRawTool[]> {
    const replyTo = `${this.opts.prefix}:rpc:${randomUUID()}`;
    const target = await this.queue.target(await this.opts.hostOfSession(session.id));
    await target.add(
      "list-tools",
      { sessionId: session.id, server, replyTo },
      { removeOnComplete: true, removeOnFail: true },
    );
    // BLPOP holds its connection: a short-lived one per listing (listings are cached for a minute).
    const conn = this.redis.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
    conn.on("error", () => {});
    try {
      const got = await conn.blpop(replyTo, Math.max(1, Math.ceil(this.opts.timeoutMs / 1000)));
      if (!got)
        throw new Error(`no worker answered the listing of ${server} within ${this.opts.timeoutMs} ms`);
      const answer = JSON.parse(got[1]) as { tools?: McpRawTool[]; error?: string };
      if (answer.error !== undefined) throw new Error(answer.error);
      return answer.tools ?? [];
    } finally {
      conn.disconnect();
    }
  }

  /** A deleted session's container and workspace go with a job to the worker that holds them. */
  async removeSandbox(sessionId: string): Promise<void> {
    const target = await this.queue.target(await this.opts.hostOfSession(sessionId));
    await target.add("remove-sandbox", { sessionId }, { removeOnComplete: true, removeOnFail: true });
  }
}

/**
 * The sandboxes of a process that talks to no Docker engine (an API): nothing is acquired here
 * (tools run in workers, listings are asked of them), and removal is handed to the session's worker.
 */
export class RemoteSandboxes implements SandboxProvider {
  constructor(private readonly rpc: RedisHostRpc) {}

  async acquire(): Promise<never> {
    throw new SandboxUnavailableError("this process runs no sandboxes; the session's worker does");
  }

  async stop(): Promise<void> {}

  async remove(sessionId: string): Promise<void> {
    await this.rpc.removeSandbox(sessionId);
  }

  async reapOrphans(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}
