/**
 * `GET /v1/jobs/{jid}/events`: SSE of `status`, `chunk` and `result` events. The contract
 * (docs/api.md#streaming): chunks are deltas of live output, `result` carries the final result
 * and is the last event; the server then ends the stream. A reconnect after the end, with or
 * without `Last-Event-ID`, gets the `result` again and ends, so a client that missed it is never
 * left without it.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { bearer, errorResponses, JobStatus, Result } from "../schemas.js";

/** How long an `EventSource` waits before it reconnects after a dropped connection (`retry:`). */
export const SSE_RETRY_MS = 3000;

const eventId = z.string().openapi({ description: "resume point: send it back as `Last-Event-ID`" });

const StatusEvent = z
  .object({ event: z.literal("status"), id: eventId, data: z.object({ status: JobStatus }) })
  .openapi("JobStatusEvent", { description: "The job's status changed." });

const ChunkEvent = z
  .object({
    event: z.literal("chunk"),
    id: eventId,
    data: z.object({
      content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
      state: z
        .enum(["running", "success", "error", "interrupted", "denied"])
        .openapi({ description: "`running` for live output; the job's outcome is the `result` event's" }),
      stream: z.enum(["stdout", "stderr"]).optional(),
    }),
  })
  .openapi("JobChunkEvent", {
    description:
      "A delta of live output (Bash's stdout/stderr as it is written): append its text blocks. Chunks " +
      "never repeat earlier output; the complete output is in the `result` event.",
  });

const ResultEvent = z
  .object({
    event: z.literal("result"),
    id: eventId,
    data: z.object({ status: JobStatus, result: Result.nullable() }),
  })
  .openapi("JobResultEvent", {
    description: "The final result; the last event of the stream, after which the server closes it.",
  });

const JobEvent = z.discriminatedUnion("event", [StatusEvent, ChunkEvent, ResultEvent]).openapi("JobEvent", {
  description:
    "One SSE message (`event:`, `id:`, `data:` as JSON). Comments (`: keep-alive`) come every 10 s " +
    "while nothing happens; the stream starts with `retry: 3000`.",
  example: {
    event: "result",
    id: "1767000000000-3",
    data: { status: "succeeded", result: { content: [{ type: "text", text: "hello\n" }], state: "success" } },
  },
});

const route = createRoute({
  method: "get",
  path: "/v1/jobs/{jid}/events",
  operationId: "streamJobEvents",
  summary: "Stream a job's events (SSE)",
  description:
    "Server-sent events of one job: `status` on each change, `chunk` for each piece of live output " +
    "(deltas), and `result` with the final result, always last. The server ends the stream after " +
    "`result`; close your `EventSource` when it arrives (a browser or the `eventsource` package " +
    "otherwise reconnects after `retry` ms, gets the `result` again and is ended again). " +
    "`Last-Event-ID` (or `?lastEventId=`) resumes after that event; a finished job answers with its " +
    "`result` at once.",
  security: bearer,
  request: {
    params: z.object({ jid: z.string() }),
    query: z.object({
      lastEventId: z
        .string()
        .optional()
        .openapi({ description: "as `Last-Event-ID`, for clients that cannot set headers" }),
    }),
    // Documented here; read below with `c.req.header`, which ignores the header name's case.
    headers: z.object({
      "Last-Event-ID": z.string().optional().openapi({
        description: "the `id` of the last event received: the stream resumes after it",
        example: "1767000000000-3",
      }),
    }),
  },
  responses: {
    200: {
      description: "the event stream (`text/event-stream`), ended by the server after `result`",
      content: { "text/event-stream": { schema: JobEvent } },
    },
    ...errorResponses,
  },
});

export function eventRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(route, async (c) => {
    const jid = c.req.valid("param").jid;
    const after = c.req.header("last-event-id") ?? c.req.valid("query").lastEventId;
    const principal = c.get("principal");
    const events = await deps.port.followJobEvents(principal, jid, after);
    let revoked = false;
    const untrack = deps.port.keyStreams.track(principal.keyId, () => {
      revoked = true;
      events.close();
    });
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => events.close());
      try {
        await stream.write(`retry: ${SSE_RETRY_MS}\n\n`);
        for await (const e of events) {
          if (e.type === "ping") await stream.write(": keep-alive\n\n");
          else await stream.writeSSE({ id: e.id, event: e.type, data: JSON.stringify(e.data) });
        }
        // Not an event id: a client resuming after it starts over, and is refused (401).
        if (revoked) await stream.writeSSE({ event: "error", data: JSON.stringify(REVOKED) });
      } finally {
        untrack();
      }
    });
  });
}

const REVOKED = { error: { code: "UNAUTHENTICATED", message: "the key of this stream was revoked" } };
