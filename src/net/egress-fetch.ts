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

/** Builds the client; `lookup` defaults to the policy-checking DNS hook. */
export function egressClient(policy: EgressPolicy, opts: { lookup?: LookupFunction } = {}): EgressClient {
  const lookup = opts.lookup ?? egressLookup(policy);
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
        (res) => resolve(toResponse(res, init.method ?? "GET")),
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

function toResponse(res: http.IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, v);
  }
  const status = res.statusCode ?? 502;
  const nullBody = method === "HEAD" || NULL_BODY_STATUSES.has(status);
  if (nullBody) res.resume();
  const body = nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: res.statusMessage ?? "", headers });
}
