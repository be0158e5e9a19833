/**
 * `/v1/sessions/{sid}/mcp`: a session exposed as an MCP server over Streamable HTTP. An
 * `initialize` opens a stateful MCP session (kept in this process, bound to the session and
 * the agent key, closed when idle) so the server can ask the client (elicitation); a request
 * without a session id that is not an `initialize` is answered statelessly.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { traceFrom } from "../api/trace-context.js";
import { AppError } from "../errors.js";
import type { Logger } from "../log.js";
import type { AskApproval, KeyStreams, OnProgress, SessionMcpVerbs } from "../service/api-port.js";
import type { Principal } from "../service/tenancy/principal.js";
import { requireRole } from "../service/tenancy/principal.js";

/** Endpoint settings. */
export interface SessionMcpEndpointOptions {
  /** An MCP session unused this long is closed, default 10 min. */
  idleMs?: number;
  /** Revoking the key that opened an MCP session closes it. */
  keyStreams?: KeyStreams;
}

/** How long an elicitation waits for the client's answer (the service's default call wait). */
const ASK_TIMEOUT_MS = 60_000;

interface Live {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  keyId: string;
  sid: string;
  lastUsed: number;
  untrack: () => void;
}

/** One per API app: holds this process's stateful MCP sessions. */
export class SessionMcpEndpoint {
  private readonly live = new Map<string, Live>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly verbs: SessionMcpVerbs,
    private readonly logger: Logger,
    private readonly opts: SessionMcpEndpointOptions = {},
  ) {
    const idleMs = opts.idleMs ?? 10 * 60_000;
    this.sweeper = setInterval(() => this.sweep(idleMs), Math.min(idleMs, 60_000));
    this.sweeper.unref();
  }

  /** Answers one request; 401/403/404 come from the API's own checks before any MCP framing. */
  async handle(p: Principal, sid: string, req: Request): Promise<Response> {
    requireRole(p, ["agent"]);
    await this.verbs.checkSession(p, sid);
    const mcpSessionId = req.headers.get("mcp-session-id");
    if (mcpSessionId) {
      const live = this.live.get(mcpSessionId);
      // Another key or session cannot use it; to them it does not exist.
      if (!live || live.keyId !== p.keyId || live.sid !== sid) return notFound();
      live.lastUsed = Date.now();
      return live.transport.handleRequest(req);
    }
    if (req.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
    const body: unknown = await req
      .clone()
      .json()
      .catch(() => undefined);
    return isInitializeRequest(body) ? this.open(p, sid, req) : this.stateless(p, sid, req);
  }

  /** Closes every MCP session of this process. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.live.values()];
    this.live.clear();
    for (const l of all) l.untrack();
    await Promise.allSettled(all.map((l) => l.server.close()));
  }

  private async open(p: Principal, sid: string, req: Request): Promise<Response> {
    const server = this.createServer(p, sid);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const untrack = this.opts.keyStreams?.track(p.keyId, () => this.end(id)) ?? (() => {});
        this.live.set(id, { transport, server, keyId: p.keyId, sid, lastUsed: Date.now(), untrack });
      },
      onsessionclosed: (id) => {
        this.live.get(id)?.untrack();
        this.live.delete(id);
      },
    });
    await server.connect(transport);
    return transport.handleRequest(req);
  }

  private async stateless(p: Principal, sid: string, req: Request): Promise<Response> {
    const server = this.createServer(p, sid);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(req);
    } finally {
      void server.close().catch(() => undefined);
    }
  }

  private createServer(p: Principal, sid: string): Server {
    const { verbs, logger } = this;
    const server = new Server({ name: "toolshed-session", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: (await verbs.listTools(p, sid)).tools,
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      // Elicitation needs the client's capability and a stream to ask on (a stateful session).
      const ask: AskApproval | undefined =
        server.getClientCapabilities()?.elicitation && extra.sessionId
          ? async (message) => {
              const answer = await server.elicitInput(
                {
                  message,
                  requestedSchema: {
                    type: "object",
                    properties: {
                      approve: { type: "boolean", title: "Approve", description: "Run this call now" },
                    },
                    required: ["approve"],
                  },
                },
                { relatedRequestId: extra.requestId, timeout: ASK_TIMEOUT_MS },
              );
              return answer.action === "accept" ? answer.content?.approve === true : null;
            }
          : undefined;
      // The client asked for progress (a progressToken): the call is followed to its end with a
      // notification every few seconds instead of answering "still running" after the wait.
      const progressToken = request.params._meta?.progressToken;
      let step = 0;
      const onProgress: OnProgress | undefined =
        progressToken === undefined
          ? undefined
          : ({ elapsedMs, status, jobId }) =>
              extra.sendNotification({
                method: "notifications/progress",
                params: {
                  progressToken,
                  progress: ++step,
                  message: `job ${jobId} ${status} for ${Math.round(elapsedMs / 1000)} s`,
                },
              });
      try {
        const args = request.params.arguments ?? {};
        // The job joins the client's trace when its request continued one (no async context to
        // carry the access log's: src/log.ts says why).
        const trace = traceFrom(headerOf(extra.requestInfo?.headers.traceparent));
        const traceId = trace.parentId ? trace.traceId : undefined;
        const call = { name: request.params.name, args, signal: extra.signal, ask, onProgress, traceId };
        return await verbs.callTool(p, sid, call);
      } catch (err) {
        // An unknown tool is the caller's error (a protocol error); the rest stays generic.
        if (err instanceof AppError && err.code === "VALIDATION") {
          throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
        }
        if (err instanceof AppError) throw new McpError(ErrorCode.InvalidRequest, err.message);
        logger.error({ err, sessionId: sid, tool: request.params.name }, "MCP call failed");
        throw new McpError(ErrorCode.InternalError, "internal error");
      }
    });
    return server;
  }

  private sweep(idleMs: number): void {
    const cutoff = Date.now() - idleMs;
    for (const [id, live] of this.live) if (live.lastUsed <= cutoff) this.end(id);
  }

  /** Closes one MCP session (its open streams end with it). */
  private end(id: string): void {
    const live = this.live.get(id);
    if (!live) return;
    this.live.delete(id);
    live.untrack();
    void live.server.close().catch(() => undefined);
  }
}

function notFound(): Response {
  const body = { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null };
  return new Response(JSON.stringify(body), { status: 404, headers: { "content-type": "application/json" } });
}

/** A header's one value (Node's headers may be a list). */
function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
