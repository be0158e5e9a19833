/**
 * Test support for MCP: the real harness (HTTP, Redis, worker, Docker) plus an API app with the
 * MCP runtime mounted, a tool registry that also holds the tenant's MCP tools (what the session
 * toolkit wiring does), and the third-party `@modelcontextprotocol/server-everything` on loopback.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createRequire } from "node:module";
import { Writable } from "node:stream";
import { createLogger } from "../../src/log.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import type { McpClientsOptions, McpRuntime } from "../../src/service/sessions/mcp-clients.js";
import type { ToolBase } from "../../src/toolkit/tool-base.js";
import { freePort } from "../support/free-port.js";
import { type Client, type Harness, startHarness } from "../support/harness.js";

const require = createRequire(import.meta.url);

/** The `EGRESS_ALLOW` that lets the host reach the test servers on 127.0.0.1. */
export const LOOPBACK_ALLOW = "127.0.0.1/32";

/** The harness (whose service carries the MCP runtime, as `serve` does) and the log text when captured. */
export interface McpHarness {
  h: Harness;
  mcp: McpRuntime;
  url: string;
  call: Client;
  /** Everything logged so far (only with `captureLogs`). */
  logs(): string;
  /** The tenant's MCP tools as the session toolkit lists them (stdio servers in `sandbox`). */
  refreshTools(tenantId: string, sandbox?: () => Promise<Sandbox>): Promise<ToolBase[]>;
  stop(): Promise<void>;
}

export async function startMcpHarness(
  opts: { captureLogs?: boolean; clients?: McpClientsOptions } = {},
): Promise<McpHarness> {
  let logText = "";
  const sink = new Writable({
    write(chunk, _enc, done) {
      logText += chunk.toString();
      done();
    },
  });
  const logger = opts.captureLogs ? createLogger("trace", sink) : undefined;
  // The test servers listen on loopback, which the egress policy refuses unless the operator allows it.
  const h = await startHarness({
    env: { EGRESS_ALLOW: LOOPBACK_ALLOW },
    start: { ...(logger ? { logger } : {}), mcp: opts.clients ?? {} },
  });
  const mcp = h.service.deps.mcp;
  if (!mcp) throw new Error("the service was started without its MCP runtime");
  return {
    h,
    mcp,
    url: h.url,
    call: h.call,
    logs: () => logText,
    async refreshTools(tenantId, sandbox) {
      const sets = await mcp.clients.toolSets(tenantId, { sandbox });
      return sets.flatMap((s) => s.tools);
    },
    async stop() {
      await h.stop();
    },
  };
}

// A free loopback port: the third-party server takes its port from PORT.
export { freePort };

// The server calls `app.listen(PORT)` (every interface); this preload pins it to loopback.
const LOOPBACK_ONLY = `import net from "node:net";const listen=net.Server.prototype.listen;
net.Server.prototype.listen=function(port,...rest){if(typeof port==="number"||typeof port==="string"){
const cb=rest.find((a)=>typeof a==="function");return listen.call(this,Number(port),"127.0.0.1",cb);}
return listen.call(this,port,...rest);};`;

/** `server-everything streamableHttp` on 127.0.0.1; resolves once it listens. */
export async function startEverythingHttp(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const entry = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(LOOPBACK_ONLY)}`, entry, "streamableHttp"],
    { env: { PATH: "/usr/bin:/bin", PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes("listening on port")) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${out}`)));
    setTimeout(() => reject(new Error(`server-everything did not start: ${out}`)), 15_000).unref();
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** The concatenated text of a job's result. */
export function jobText(job: { result?: { content: { text?: string }[] } }): string {
  return (job.result?.content ?? []).map((b) => b.text ?? "").join("");
}

/**
 * A minimal Streamable HTTP MCP server: one read-only tool `wait` (and `act`, which is not, when
 * asked); counts connections and listings; may never answer calls, or hold requests until told.
 */
export interface TinyMcpServer {
  url: string;
  headers: IncomingMessage["headers"][];
  connections: number;
  listings: number;
  /** Every `tools/call` received: its headers and params (`_meta` included). */
  calls: { headers: IncomingMessage["headers"]; params: Record<string, unknown> }[];
  /** Requests held by `hold`, in arrival order: `answer()` sends what would have been sent. */
  held: { method: string; answer(): void }[];
  server: Server;
}

export async function startTinyMcpServer(opts: {
  answerCalls: boolean;
  /** Read-only tools `t0`… listed after `wait` (a server with very many tools). */
  extraTools?: number;
  /** Also list `act` (not read-only); a call's answer text. */
  act?: string;
  /** A request for which this says true is answered only when the test calls its `answer`. */
  hold?: (method: string) => boolean;
}): Promise<TinyMcpServer> {
  const state: TinyMcpServer = {
    url: "",
    headers: [],
    connections: 0,
    listings: 0,
    calls: [],
    held: [],
    server: createHttpServer(),
  };
  state.server.on("connection", () => state.connections++);
  state.server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    state.headers.push(req.headers);
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const msg = JSON.parse(body) as {
        id?: number;
        method: string;
        params?: { protocolVersion?: string } & Record<string, unknown>;
      };
      const send = (result: unknown) =>
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }));
      const reply = (result: unknown) =>
        opts.hold?.(msg.method)
          ? state.held.push({ method: msg.method, answer: () => send(result) })
          : send(result);
      if (msg.method === "initialize") {
        reply({
          protocolVersion: msg.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "tiny", version: "1" },
        });
      } else if (msg.method === "tools/list") {
        state.listings++;
        reply({
          tools: [
            {
              name: "wait",
              description: "Answers only when the server is told to.",
              inputSchema: { type: "object", properties: {} },
              annotations: { readOnlyHint: true },
            },
            ...(opts.act === undefined
              ? []
              : [{ name: "act", description: "Acts.", inputSchema: { type: "object", properties: {} } }]),
            ...Array.from({ length: opts.extraTools ?? 0 }, (_, i) => ({
              name: `t${i}`,
              inputSchema: { type: "object", properties: {} },
              annotations: { readOnlyHint: true },
            })),
          ],
        });
      } else if (msg.method === "tools/call") {
        state.calls.push({ headers: req.headers, params: msg.params ?? {} });
        const text = (msg.params as { name?: string }).name === "act" ? opts.act : "done";
        if (opts.answerCalls) reply({ content: [{ type: "text", text }] });
        // else: no answer, ever.
      } else if (msg.id === undefined) {
        res.writeHead(202).end();
      }
    });
  });
  state.url = await listenLoopback(state.server);
  return state;
}

/** Accepts connections and never answers anything. */
export async function startDeadServer(): Promise<{ url: string; server: Server; requests: () => number }> {
  let requests = 0;
  const server = createHttpServer(() => {
    requests++;
  });
  return { url: await listenLoopback(server), server, requests: () => requests };
}

function listenLoopback(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const addr = server.address();
      resolve(`http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}/mcp`);
    }),
  );
}
