/**
 * A `fetch` for requests the host makes for a tenant (HTTP MCP servers; webhooks later): the
 * egress policy is applied where the socket connects (IP literals before the request, names in
 * the socket's `lookup`), and redirects are never followed here: a caller that follows one calls
 * this fetch again, so every hop is checked. Streams response bodies (SSE) as they arrive.
 */
import * as http from "node:http";
import * as https from "node:https";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { egressLookup } from "./egress-lookup.js";
import { type EgressPolicy, EgressRefusedError } from "./egress-policy.js";

/** The fetch signature the MCP SDK accepts. */
export type EgressFetchFn = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The fetch plus its connection pools, closed on shutdown. */
export interface EgressClient {
  fetch: EgressFetchFn;
  close(): void;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
/**
 * The most of a body this process holds for one answer (an event stream: for one event), as the
 * stdio transport bounds a message: the server is a tenant's, and its answer is read into memory.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Builds the client; `lookup` defaults to the policy-checking DNS hook. */
export function egressClient(
  policy: EgressPolicy,
  opts: { lookup?: LookupFunction; maxBodyBytes?: number } = {},
): EgressClient {
  const lookup = opts.lookup ?? egressLookup(policy);
  const maxBodyBytes = opts.maxBodyBytes ?? MAX_RESPONSE_BYTES;
  const agents = {
    "http:": new http.Agent({ keepAlive: true }),
    "https:": new https.Agent({ keepAlive: true }),
  };
  const fetch: EgressFetchFn = async (input, init = {}) => {
    const url = new URL(input);
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(`egress fetch supports http and https, not ${url.protocol}`);
    }
    // An IP literal is connected to without a lookup: judge it here, the address is final.
    const refusal = policy.checkHost(url.hostname);
    if (refusal) throw new EgressRefusedError(refusal);
    const body = requestBody(init.body);
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    if (body) headers["content-length"] = String(body.length);
    const request = url.protocol === "https:" ? https.request : http.request;
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        url,
        {
          method: init.method ?? "GET",
          headers,
          agent: agents[url.protocol as "http:" | "https:"],
          lookup,
          signal: init.signal ?? undefined,
        },
        (res) => resolve(toResponse(res, init.method ?? "GET", maxBodyBytes)),
      );
      req.on("error", reject);
      req.end(body);
    });
  };
  return {
    fetch,
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

function requestBody(body: RequestInit["body"]): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(new Uint8Array(body));
  throw new TypeError("egress fetch sends string or byte bodies only");
}

function toResponse(res: http.IncomingMessage, method: string, maxBodyBytes: number): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, v);
  }
  const status = res.statusCode ?? 502;
  const nullBody = method === "HEAD" || NULL_BODY_STATUSES.has(status);
  if (nullBody) res.resume();
  if (!nullBody) bound(res, maxBodyBytes, /^text\/event-stream/i.test(res.headers["content-type"] ?? ""));
  const body = nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: res.statusMessage ?? "", headers });
}

/**
 * Fails the body once it passes `max` bytes: in all, or for an event stream since the blank line
 * that ended the last event (a long-lived stream of small events goes on).
 */
function bound(res: http.IncomingMessage, max: number, perEvent: boolean): void {
  let held = 0;
  let lineStart = true;
  res.on("data", (chunk: Buffer) => {
    if (!perEvent) held += chunk.length;
    else {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i];
        if (byte === 10) {
          if (lineStart) held = 0;
          else held++;
          lineStart = true;
        } else if (byte !== 13) {
          held++;
          lineStart = false;
        }
        if (held > max) break;
      }
    }
    if (held > max)
      res.destroy(
        new Error(`the server's answer has more than ${max} bytes${perEvent ? " in one event" : ""}`),
      );
  });
}
