/** A tenant's skills: upload (JSON file map or `.tar.gz` body), list, delete. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { SkillView } from "../../contracts/tool-config.js";
import { AppError } from "../../errors.js";
import type { ApiDeps } from "../api-deps.js";
import type { AppEnv } from "../context.js";
import { bearer, ErrorBody, errorResponses, json } from "../schemas.js";

const TenantParams = z.object({ tid: z.string() });
const GZIP_TYPES = [
  "application/gzip",
  "application/x-gzip",
  "application/x-tar+gzip",
  "application/octet-stream",
];
const Archive = z.string().openapi({ type: "string", format: "binary" });
const FileMap = z
  .object({ files: z.record(z.string(), z.unknown()) })
  .openapi("SkillUpload", { example: { files: { "SKILL.md": "---\nname: x\ndescription: y\n---\n..." } } });

const mediaType = (type: string | undefined) => (type ?? "").split(";")[0]!.trim().toLowerCase();

// Runs before the body validators: anything but JSON or gzip is a 415.
const jsonOrGzip: MiddlewareHandler<AppEnv> = async (c, next) => {
  const type = mediaType(c.req.header("content-type"));
  if (type !== "application/json" && !GZIP_TYPES.includes(type)) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      "send the skill as application/json {files} or as an application/gzip tar",
      [{ path: "content-type", message: `unsupported content type ${JSON.stringify(type)}` }],
    );
  }
  await next();
};

const postSkill = createRoute({
  method: "post",
  path: "/v1/tenants/{tid}/skills",
  operationId: "uploadSkill",
  summary: "Upload a skill",
  security: bearer,
  middleware: [jsonOrGzip] as const,
  request: {
    params: TenantParams,
    body: {
      required: false,
      content: {
        "application/json": { schema: FileMap },
        ...Object.fromEntries(GZIP_TYPES.map((t) => [t, { schema: Archive }])),
      },
    },
  },
  responses: {
    201: json(
      z.object({ name: z.string(), description: z.string() }),
      "stored (replacing a skill of that name)",
    ),
    ...errorResponses,
    409: json(ErrorBody, "a new skill past the tenant's 200 (delete one first)"),
    413: json(ErrorBody, "the skill (or the archive inflated) is too big"),
  },
});

const getSkills = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/skills",
  operationId: "listSkills",
  summary: "List the skills",
  security: bearer,
  request: { params: TenantParams },
  responses: {
    200: json(z.object({ skills: z.array(SkillView) }), "the tenant's skills"),
    ...errorResponses,
  },
});

const deleteOne = createRoute({
  method: "delete",
  path: "/v1/tenants/{tid}/skills/{name}",
  operationId: "deleteSkill",
  summary: "Delete a skill",
  security: bearer,
  request: { params: z.object({ tid: z.string(), name: z.string() }) },
  responses: {
    204: { description: "removed" },
    409: json(ErrorBody, "a tool group uses it"),
    ...errorResponses,
  },
});

export function skillRoutes(app: OpenAPIHono<AppEnv>, deps: ApiDeps): void {
  app.openapi(postSkill, async (c) => {
    const { tid } = c.req.valid("param");
    const type = mediaType(c.req.header("content-type"));
    const upload =
      type === "application/json" ? c.req.valid("json").files : Buffer.from(await c.req.arrayBuffer());
    return c.json(await deps.port.uploadSkill(c.get("principal"), tid, upload), 201);
  });
  app.openapi(getSkills, async (c) =>
    c.json({ skills: await deps.port.listSkills(c.get("principal"), c.req.valid("param").tid) }, 200),
  );
  app.openapi(deleteOne, async (c) => {
    const { tid, name } = c.req.valid("param");
    await deps.port.deleteSkill(c.get("principal"), tid, name);
    return c.body(null, 204);
  });
}
