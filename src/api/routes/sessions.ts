/** Sessions: create, list, read, change mode/directories, delete; the tools the model should see. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import {
  bearer,
  errorResponses,
  json,
  jsonBody,
  Mode,
  PageParams,
  page,
  rateLimitedResponse,
  Session,
  TenantFilter,
} from "../schemas.js";

const Sid = z.object({ sid: z.string() });
const Dirs = z.array(z.string().startsWith("/", { error: "must be an absolute path" }));

const postSession = createRoute({
  method: "post",
  path: "/v1/sessions",
  operationId: "createSession",
  summary: "Create a session",
  security: bearer,
  description: "Mode `bypass` needs the tenant setting `allowBypass` (403 FORBIDDEN otherwise).",
  request: {
    body: jsonBody(
      z.object({
        mode: Mode.optional(),
        workingDirectories: Dirs.optional(),
        toolGroups: z.array(z.string()).optional(),
        tools: z.array(z.string()).optional(),
        skills: z.array(z.string()).optional(),
      }),
    ),
  },
  responses: { 201: json(Session, "created"), ...errorResponses, ...rateLimitedResponse },
});

const list = createRoute({
  method: "get",
  path: "/v1/sessions",
  operationId: "listSessions",
  summary: "List sessions",
  security: bearer,
  description:
    "The caller's tenant's sessions, newest first; `status` is `active` or `deleted` (default: both).",
  request: {
    query: PageParams.extend({ status: z.string().optional(), tenantId: TenantFilter }),
  },
  responses: { 200: json(page(Session).openapi("SessionPage"), "a page of sessions"), ...errorResponses },
});

const getOne = createRoute({
  method: "get",
  path: "/v1/sessions/{sid}",
  operationId: "getSession",
  summary: "Read a session",
  security: bearer,
  request: { params: Sid },
  responses: { 200: json(Session, "the session"), ...errorResponses },
});

const patchOne = createRoute({
  method: "patch",
  path: "/v1/sessions/{sid}",
  operationId: "updateSession",
  summary: "Change a session's mode, cwd or directories",
  security: bearer,
  request: {
    params: Sid,
    body: jsonBody(z.object({ mode: Mode.optional(), workingDirectories: Dirs.optional() })),
  },
  responses: { 200: json(Session, "the session"), ...errorResponses },
});

const deleteOne = createRoute({
  method: "delete",
  path: "/v1/sessions/{sid}",
  operationId: "deleteSession",
  summary: "Delete a session",
  security: bearer,
  request: { params: Sid },
  responses: { 204: { description: "deleted with its container and workspace" }, ...errorResponses },
});

const ToolInfo = z.object({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});
const getTools = createRoute({
  method: "get",
  path: "/v1/sessions/{sid}/tools",
  operationId: "listSessionTools",
  summary: "List a session's tools",
  security: bearer,
  request: { params: Sid },
  responses: {
    200: json(z.object({ tools: z.array(ToolInfo), systemPrompt: z.string() }), "what the model sees"),
    ...errorResponses,
  },
});

export function sessionRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(postSession, async (c) =>
    c.json(await deps.port.createSession(c.get("principal"), c.req.valid("json")), 201),
  );
  app.openapi(list, (c) => c.json(deps.port.listSessions(c.get("principal"), c.req.valid("query")), 200));
  app.openapi(getOne, (c) => c.json(deps.port.getSession(c.get("principal"), c.req.valid("param").sid), 200));
  app.openapi(patchOne, (c) =>
    c.json(deps.port.updateSession(c.get("principal"), c.req.valid("param").sid, c.req.valid("json")), 200),
  );
  app.openapi(deleteOne, async (c) => {
    await deps.port.deleteSession(c.get("principal"), c.req.valid("param").sid);
    return c.body(null, 204);
  });
  app.openapi(getTools, async (c) =>
    c.json(await deps.port.listSessionTools(c.get("principal"), c.req.valid("param").sid), 200),
  );
}
