/** `GET /v1/jobs/{jid}/events`: SSE of `status`, `chunk` and `result` events; `Last-Event-ID` resumes. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { bearer, errorResponses } from "../schemas.js";

const route = createRoute({
  method: "get",
  path: "/v1/jobs/{jid}/events",
  security: bearer,
  request: { params: z.object({ jid: z.string() }) },
  responses: {
    200: { description: "text/event-stream", content: { "text/event-stream": { schema: z.string() } } },
    ...errorResponses,
  },
});

export function eventRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(route, async (c) => {
    const jid = c.req.valid("param").jid;
    const after = c.req.header("last-event-id") ?? c.req.query("lastEventId");
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
