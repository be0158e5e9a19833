/**
 * Refuses JSON bodies nested deeper than a limit before anything parses them: validation, the
 * policy engine and storage walk inputs recursively, and a 10k-deep body must be a 400, not a
 * stack overflow.
 */
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import type { Context, MiddlewareHandler } from "hono";
import { passed } from "../call-path.js";
import { PayloadTooLargeError, ValidationError } from "../errors.js";

export const MAX_JSON_DEPTH = 100;

/** The deepest nesting of arrays and objects in `text` (strings skipped); no parsing. */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) max = Math.max(max, ++depth);
    else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return max;
}

const JSON_TYPE = /^application\/([\w.+-]+\+)?json/i;

/** Node's request under a real server (@hono/node-server's `env.incoming`); absent in `app.request`. */
function nodeIncoming(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof Readable ? (incoming as IncomingMessage) : undefined;
}

/** Whether this request's JSON body is read straight from Node's stream (see jsonDepthLimit). */
export function readsJsonDirectly(c: Context): boolean {
  return nodeIncoming(c) !== undefined && JSON_TYPE.test(c.req.header("content-type") ?? "");
}

/**
 * Before authentication, for a body read straight from Node's stream: a declared length over the
 * limit is refused without reading a byte (the stream read caps undeclared ones).
 */
export function declaredLengthLimit(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const declared = Number(c.req.header("content-length") ?? 0);
    if (declared > maxBytes) throw new PayloadTooLargeError(maxBytes);
    await next();
  };
}

/** The bodies read straight from Node's stream, for rawRequest. */
const directBodies = new WeakMap<Request, string>();

/**
 * Reads a JSON body once and refuses one nested deeper than `maxDepth` (400) or larger than
 * `maxBytes` (413). Under a real server the bytes come straight from Node's stream into hono's
 * body cache, where validators read them: going through the request's `body` made node-server
 * build a fetch Request with a web stream for every call (~0.1-0.2 ms of CPU).
 */
export function jsonDepthLimit(
  maxDepth = MAX_JSON_DEPTH,
  maxBytes = Number.POSITIVE_INFINITY,
): MiddlewareHandler {
  return async (c, next) => {
    const type = c.req.header("content-type") ?? "";
    if (!JSON_TYPE.test(type)) return next();
    const incoming = nodeIncoming(c);
    let text: string;
    if (incoming) {
      if (!hasBody(incoming)) return next();
      text = await readAll(incoming, maxBytes);
      passed("body read");
      // hono keeps pending reads there (its type says values): `c.req.json()` parses this one.
      (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
      directBodies.set(c.req.raw, text);
    } else {
      if (!c.req.raw.body) return next();
      text = await c.req.text();
    }
    if (jsonNestingDepth(text) > maxDepth) {
      throw new ValidationError(`the JSON body is nested deeper than ${maxDepth} levels`, [
        { path: "", message: `nesting deeper than ${maxDepth}` },
      ]);
    }
    // Handlers read the body through `c.req` (hono keeps the text read here); one that needs the
    // raw request takes it from rawRequest().
    await next();
  };
}

function hasBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers["content-length"];
  return incoming.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** The whole body as text (UTF-8, a leading BOM dropped as `Request.text()` does), at most `maxBytes`. */
function readAll(incoming: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    // A client that drops the connection mid-body ends the request with "aborted": its fault,
    // a 400 like a body cut short through a fetch Request, not an unhandled 500 in the log.
    const cut = () =>
      reject(
        new ValidationError("the request body ended before its declared end", [
          { path: "", message: "body cut short" },
        ]),
      );
    // It may have gone while authentication ran: its `error` and `close` were emitted already.
    if (incoming.destroyed) return cut();
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        incoming.off("data", onData);
        // The rest is drained, not kept, so that the 413 can still be written on this connection.
        incoming.resume();
        reject(new PayloadTooLargeError(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    incoming.on("data", onData);
    incoming.once("end", () => {
      const text = Buffer.concat(chunks, size).toString("utf8");
      resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    });
    incoming.once("error", cut);
    incoming.once("close", () => {
      if (!incoming.readableEnded) cut();
    });
  });
}

/** The request as it came, its body readable again when the check above consumed it. */
export async function rawRequest(c: Context): Promise<Request> {
  const raw = c.req.raw;
  const direct = directBodies.get(raw);
  if (direct !== undefined) {
    // The text may be shorter than the bytes that came (a byte-order mark dropped): its length is
    // the new body's own, not the client's.
    const headers = new Headers(raw.headers);
    headers.delete("content-length");
    return new Request(raw.url, { method: raw.method, headers, body: direct });
  }
  return raw.bodyUsed ? new Request(raw, { body: await c.req.text() }) : raw;
}
