/**
 * One tenant MCP server as seen by Toolshed (docs/toolkit.md#mcp-tools): stateful connections are kept
 * (HTTP: one; stdio: one per session sandbox), stateless HTTP opens a fresh session per request.
 * Every listing and call has a timeout; failures become `McpServerError`s with a clear message.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type CallToolResult, ErrorCode, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { type Sandbox, SandboxUnavailableError } from "../../sandbox/sandbox.js";
import type { RunAttemptInfo } from "../run-context.js";
import type { McpServerConfig } from "./config.js";
import { SandboxStdioTransport } from "./sandbox-stdio-transport.js";

/** Timeouts and identity; every field has a default. */
export interface McpClientOptions {
  /** Listing (and connecting), default 10 s. */
  listTimeoutMs?: number;
  /** Tool calls, default 30 s (a server's own `callTimeoutMs` wins). */
  callTimeoutMs?: number;
  /** A kept connection unused this long is closed (stdio: lets the sandbox go idle), default 5 min. */
  idleCloseMs?: number;
  clientInfo?: { name: string; version: string };
  /** The fetch HTTP servers are reached with (the service passes its egress-checked one). */
  fetch?: FetchLike;
}

/** A server that failed, hung or is misconfigured; the message is safe to show to the model. */
export class McpServerError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "McpServerError";
  }
}

/**
 * What a tool call tells the server about the call it belongs to (docs/toolkit.md#mcp-tools): over
 * HTTP as headers on the `tools/call` request, and on every transport in the request's `_meta`.
 * The key is the same for every attempt of one call (its job id); the attempt grows with each
 * take-over, so a server that remembers the highest attempt per key can refuse a stale one.
 */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const ATTEMPT_HEADER = "Toolshed-Attempt";
export const IDEMPOTENCY_META = "dev.toolshed/idempotency-key";
export const ATTEMPT_META = "dev.toolshed/attempt";

/** The raw tool as the server lists it. */
export type McpRawTool = Tool;

const MAX_PAGES = 20;
/**
 * The most tools one server's listing keeps (the rest are dropped): each call of the tenant's
 * sessions builds them into its toolkit, on the process's one thread.
 */
export const MAX_TOOLS_PER_SERVER = 1000;

interface Conn {
  client: Promise<Client>;
  idle?: NodeJS.Timeout;
}

export class McpClient {
  readonly name: string;
  private readonly listTimeoutMs: number;
  private readonly callTimeoutMs: number;
  private readonly idleCloseMs: number;
  private readonly conns = new Map<string, Conn>();
  private closed = false;

  constructor(
    readonly config: McpServerConfig,
    private readonly opts: McpClientOptions = {},
  ) {
    this.name = config.name;
    this.listTimeoutMs = opts.listTimeoutMs ?? 10_000;
    this.callTimeoutMs = config.callTimeoutMs ?? opts.callTimeoutMs ?? 30_000;
    this.idleCloseMs = opts.idleCloseMs ?? 5 * 60_000;
  }

  /** The server's whole, unfiltered tool list; stdio servers need the sandbox to run in. */
  listRawTools(sandbox?: Sandbox): Promise<McpRawTool[]> {
    return this.withClient(sandbox, "list its tools", this.listTimeoutMs, async (client) => {
      const tools: McpRawTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const res = await client.listTools(cursor ? { cursor } : {}, { timeout: this.listTimeoutMs });
        tools.push(...res.tools);
        cursor = res.nextCursor;
        if (!cursor || tools.length >= MAX_TOOLS_PER_SERVER) break;
      }
      return tools.slice(0, MAX_TOOLS_PER_SERVER);
    });
  }

  /**
   * Calls a tool by its server-side name; an `isError` result is returned, not thrown. With
   * `attempt`, its fence is asked right before the request (connected already), and the request
   * carries the call's key and attempt.
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    opts: { sandbox?: Sandbox; signal?: AbortSignal; attempt?: RunAttemptInfo } = {},
  ): Promise<CallToolResult> {
    const a = opts.attempt;
    return this.withClient(opts.sandbox, `answer ${name}`, this.callTimeoutMs, async (client) => {
      await a?.fence();
      const meta = a ? { _meta: { [IDEMPOTENCY_META]: a.key, [ATTEMPT_META]: a.run } } : {};
      // Over HTTP the transport's fetch copies the `_meta` key and attempt into headers
      // (withCallHeaders): the request's own argument, not an async context (src/log.ts says why).
      const res = await client.callTool({ name, arguments: args, ...meta }, undefined, {
        timeout: this.callTimeoutMs,
        signal: opts.signal,
      });
      return res as CallToolResult;
    });
  }

  /** Closes every kept connection (stdio: kills the processes). */
  async close(): Promise<void> {
    this.closed = true;
    const conns = [...this.conns.values()];
    this.conns.clear();
    await Promise.allSettled(conns.map((c) => this.dispose(c)));
  }

  private async withClient<T>(
    sandbox: Sandbox | undefined,
    what: string,
    timeoutMs: number,
    use: (client: Client) => Promise<T>,
  ): Promise<T> {
    if (this.closed) throw new McpServerError(`MCP server '${this.name}' is closed.`);
    const stateless = this.config.transport === "http" && !this.config.stateful;
    if (stateless) {
      const client = await this.open(sandbox).catch((err: unknown) => this.fail(err, "connect", timeoutMs));
      try {
        return await use(client).catch((err: unknown) => this.fail(err, what, timeoutMs));
      } finally {
        void client.close().catch(() => undefined);
      }
    }
    const key = this.config.transport === "http" ? "http" : requireSandbox(sandbox, this.name).sessionId;
    let conn = this.conns.get(key);
    if (!conn) {
      const fresh: Conn = { client: this.open(sandbox) };
      conn = fresh;
      this.conns.set(key, fresh);
      fresh.client.then(
        (c) => {
          // A dropped connection (server gone, sandbox stopped) is opened again on next use.
          c.onclose = () => this.forget(key, fresh);
        },
        () => this.forget(key, fresh),
      );
    }
    const client = await conn.client.catch((err: unknown) => this.fail(err, "connect", timeoutMs));
    this.touch(key, conn);
    return use(client).catch((err: unknown) => this.fail(err, what, timeoutMs));
  }

  private async open(sandbox: Sandbox | undefined): Promise<Client> {
    const client = new Client(this.opts.clientInfo ?? { name: "toolshed", version: "1" });
    const transport = this.transport(sandbox);
    try {
      await client.connect(transport, { timeout: this.listTimeoutMs });
    } catch (err) {
      await transport.close().catch(() => undefined);
      if (transport instanceof SandboxStdioTransport && transport.stderrTail.trim() && err instanceof Error) {
        err.message = `${err.message} (stderr: ${transport.stderrTail.trim().split("\n").slice(-3).join(" | ")})`;
      }
      throw err;
    }
    return client;
  }

  private transport(sandbox: Sandbox | undefined): Transport {
    const c = this.config;
    if (c.transport === "http") {
      return new StreamableHTTPClientTransport(new URL(c.url), {
        requestInit: { headers: { ...(c.headers ?? {}) } },
        fetch: withCallHeaders(this.opts.fetch ?? fetch),
      });
    }
    return new SandboxStdioTransport(requireSandbox(sandbox, this.name), {
      argv: [c.command, ...(c.args ?? [])],
      cwd: c.cwd,
      env: c.env,
    });
  }

  private touch(key: string, conn: Conn): void {
    clearTimeout(conn.idle);
    conn.idle = setTimeout(() => this.forget(key, conn, true), this.idleCloseMs);
    conn.idle.unref();
  }

  private forget(key: string, conn: Conn, dispose = false): void {
    if (this.conns.get(key) === conn) this.conns.delete(key);
    if (dispose) void this.dispose(conn);
  }

  private async dispose(conn: Conn): Promise<void> {
    clearTimeout(conn.idle);
    const client = await conn.client.catch(() => null);
    await client?.close().catch(() => undefined);
  }

  /** Rethrows sandbox outages as they are (the worker retries) and the rest as a clear error. */
  private fail(err: unknown, what: string, timeoutMs: number): never {
    if (err instanceof SandboxUnavailableError || err instanceof McpServerError) throw err;
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      throw new McpServerError(`MCP server '${this.name}' did not ${what} within ${timeoutMs} ms.`, {
        cause: err,
      });
    }
    const detail = err instanceof Error ? err.message : String(err);
    throw new McpServerError(`MCP server '${this.name}' failed to ${what}: ${detail}`, { cause: err });
  }
}

function requireSandbox(sandbox: Sandbox | undefined, name: string): Sandbox {
  if (!sandbox) throw new McpServerError(`MCP server '${name}' runs over stdio and needs a session sandbox.`);
  return sandbox;
}

/**
 * The fetch a transport sends with: a `tools/call` request whose `_meta` names the call's key and
 * attempt (callTool) is sent with them as headers too, over any of the tenant's own headers of the
 * same name. Read from the JSON-RPC body the request carries (a kept connection is shared by
 * concurrent calls, so nothing outside the request can say which call it is); only a body that
 * names the key is parsed.
 */
function withCallHeaders(send: FetchLike): FetchLike {
  return (url, init) => {
    const extra = callHeadersOf(init?.body);
    if (!extra) return send(url, init);
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(extra)) headers.set(k, v);
    return send(url, { ...init, headers });
  };
}

/** The key and attempt headers of a `tools/call` body that carries them in `params._meta`. */
export function callHeadersOf(body: unknown): Record<string, string> | undefined {
  if (typeof body !== "string" || !body.includes(IDEMPOTENCY_META)) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  const m = message as { method?: unknown; params?: { _meta?: Record<string, unknown> } } | null;
  if (m?.method !== "tools/call") return undefined;
  const key = m.params?._meta?.[IDEMPOTENCY_META];
  const run = m.params?._meta?.[ATTEMPT_META];
  if (typeof key !== "string" || typeof run !== "number") return undefined;
  return { [IDEMPOTENCY_KEY_HEADER]: key, [ATTEMPT_HEADER]: String(run) };
}
