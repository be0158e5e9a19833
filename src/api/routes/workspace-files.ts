/**
 * A session's workspace files as raw bytes: upload and download of one file, and a tar
 * export/import of /workspace. Bodies are not JSON and have their own size limit
 * (FILE_TRANSFER_MAX_BYTES); the session's Write/Read rules decide (403 POLICY_DENIED).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { bearer, ErrorBody, errorResponses, json } from "../schemas.js";

/** Paths whose bodies are raw bytes (no JSON checks; the transfer size limit). */
export const RAW_BODY_PATH = /^\/v1\/sessions\/[^/]+\/(files|workspace\.tar)$/;

const Sid = z.object({ sid: z.string() });
const FileQuery = z.object({
  path: z.string().min(1).openapi({
    description: "The file: absolute under /workspace, or relative to it",
    example: "data/in.bin",
  }),
});
const Binary = z.string().openapi({ type: "string", format: "binary" });
const binaryBody = (type: string, description: string) => ({
  required: true,
  description,
  content: { [type]: { schema: Binary } },
});
const refused = {
  403: json(
    ErrorBody,
    "FORBIDDEN: the key's role may not; POLICY_DENIED: the session's rules refuse it; details name the path and rule",
  ),
  413: json(ErrorBody, "PAYLOAD_TOO_LARGE: larger than FILE_TRANSFER_MAX_BYTES"),
  504: json(
    ErrorBody,
    "TRANSFER_PENDING: the transfer's job was made but has not run yet; it will run once (`details[0].message` " +
      "is the job's id: follow GET /v1/jobs/{id}, do not send the request again)",
  ),
};

const putFile = createRoute({
  method: "put",
  path: "/v1/sessions/{sid}/files",
  operationId: "uploadFile",
  summary: "Upload a workspace file",
  security: bearer,
  description:
    "Writes the raw request body to a workspace file (created with its parents, replaced if present), as the " +
    "agent. Decided like a Write call of the path: anything but `allow` is 403 POLICY_DENIED. Audited as a job " +
    "`workspace.upload` of the session, run after the session's earlier calls.",
  request: {
    params: Sid,
    query: FileQuery,
    body: binaryBody("application/octet-stream", "the file's bytes"),
  },
  responses: {
    200: json(z.object({ path: z.string(), bytes: z.number(), sha256: z.string() }), "written"),
    ...errorResponses,
    ...refused,
  },
});

const getFile = createRoute({
  method: "get",
  path: "/v1/sessions/{sid}/files",
  operationId: "downloadFile",
  summary: "Download a workspace file",
  security: bearer,
  description: "The raw bytes of a workspace file. Decided like a Read call of the path.",
  request: { params: Sid, query: FileQuery },
  responses: {
    200: { description: "the file", content: { "application/octet-stream": { schema: Binary } } },
    ...errorResponses,
    ...refused,
  },
});

const getTar = createRoute({
  method: "get",
  path: "/v1/sessions/{sid}/workspace.tar",
  operationId: "exportWorkspace",
  summary: "Export the workspace as a tar archive",
  security: bearer,
  description:
    "A tar of /workspace (files, directories and symbolic links as links). Decided like a Read of /workspace; " +
    "members the session's Read rules refuse are left out.",
  request: { params: Sid },
  responses: {
    200: { description: "the archive", content: { "application/x-tar": { schema: Binary } } },
    ...errorResponses,
    ...refused,
  },
});

const putTar = createRoute({
  method: "put",
  path: "/v1/sessions/{sid}/workspace.tar",
  operationId: "importWorkspace",
  summary: "Import a tar archive into the workspace",
  security: bearer,
  description:
    "Extracts an uncompressed tar into /workspace. Only regular files and directories with relative paths " +
    "without `..` are accepted (links, devices and FIFOs are a 400 naming the member); nothing is written " +
    "through a symbolic link or outside /workspace. Every member is decided like a Write call of its path.",
  request: { params: Sid, body: binaryBody("application/x-tar", "the archive") },
  responses: {
    200: json(z.object({ entries: z.number(), bytes: z.number() }), "extracted"),
    ...errorResponses,
    ...refused,
  },
});

export function workspaceFileRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(putFile, async (c) => {
    const body = Buffer.from(await c.req.arrayBuffer());
    const done = await deps.port.uploadFile(
      c.get("principal"),
      c.req.valid("param").sid,
      c.req.valid("query").path,
      body,
      { traceId: c.get("traceId") },
    );
    return c.json(done, 200);
  });
  app.openapi(getFile, async (c) => {
    const { path, data } = await deps.port.downloadFile(
      c.get("principal"),
      c.req.valid("param").sid,
      c.req.valid("query").path,
      { traceId: c.get("traceId") },
    );
    const name = path
      .split("/")
      .pop()!
      .replace(/[^\w.-]/g, "_");
    return c.body(new Uint8Array(data), 200, {
      "content-type": "application/octet-stream",
      "content-disposition": `attachment; filename="${name}"`,
    }) as never;
  });
  app.openapi(getTar, async (c) => {
    const tar = await deps.port.exportWorkspace(c.get("principal"), c.req.valid("param").sid, {
      traceId: c.get("traceId"),
    });
    return c.body(new Uint8Array(tar), 200, {
      "content-type": "application/x-tar",
      "content-disposition": 'attachment; filename="workspace.tar"',
    }) as never;
  });
  app.openapi(putTar, async (c) => {
    const body = Buffer.from(await c.req.arrayBuffer());
    return c.json(
      await deps.port.importWorkspace(c.get("principal"), c.req.valid("param").sid, body, {
        traceId: c.get("traceId"),
      }),
      200,
    );
  });
}
