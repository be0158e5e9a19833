/**
 * The OpenAPI document served at `/openapi.json`: generated from the routes' zod definitions,
 * then finished here in one place so that a new route only has to name its `operationId` and
 * `summary`: tags come from the path (unless the route sets its own), security from the prefix
 * (`/v1/*` needs a bearer key, the rest is open), plus servers and the tag descriptions.
 * `npm run check` lints the result with Redocly (`redocly.yaml`): a route without an
 * `operationId` or `summary` fails it.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./context.js";

type Document = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;
type Operation = { tags?: string[]; security?: unknown[]; operationId?: string; summary?: string };

/** Groups of the reference, in reading order; the first whose pattern matches a path wins. */
const TAGS: { name: string; description: string; match: RegExp }[] = [
  {
    name: "Tenants",
    description: "Tenants, their API keys (roles `tenant_admin` and `agent`) and settings.",
    match: /^\/v1\/(tenants(\/\{tid\}(\/(keys|settings))?)?|keys\/.*)$/,
  },
  {
    name: "Policy",
    description: "The rule sets that decide which calls run, are held for approval or are denied.",
    match: /^\/v1\/(policy\/|tenants\/\{tid\}\/rules)/,
  },
  {
    name: "Tools",
    description: "What a tenant adds to the built-in tools: external tools, groups, skills, MCP servers.",
    match: /^\/v1\/tenants\/\{tid\}\/(tools|tool-groups|skills|mcp-servers)/,
  },
  {
    name: "Calls",
    description:
      "Submitting tool calls. A call is decided at once: it runs (a job), is held for approval, or is denied.",
    match: /^\/v1\/sessions\/\{sid\}\/(calls|decisions)$/,
  },
  {
    name: "Sessions",
    description: "An agent's session: mode, working directories, its own sandbox and workspace.",
    match: /^\/v1\/sessions/,
  },
  {
    name: "Jobs",
    description: "A submitted call: read it, wait for it, stream its events, approve or cancel it.",
    match: /^\/v1\/jobs(\/|$)/,
  },
  {
    name: "Approvals",
    description: "The tenant admin's inbox of calls held for approval, listed or streamed as they arrive.",
    match: /^\/v1\/approvals/,
  },
  {
    name: "Webhooks",
    description: "A tenant's webhook (signed, retried deliveries of job events) and its delivery log.",
    match: /^\/v1\/tenants\/\{tid\}\/webhooks/,
  },
  {
    name: "Audit",
    description: "What was decided and done, per tenant.",
    match: /^\/v1\/tenants\/\{tid\}\/audit/,
  },
  {
    name: "System",
    description: "Liveness, readiness and metrics; no key needed.",
    match: /^\/(healthz|readyz|metrics)$/,
  },
];

/** The tag of a path: the first matching group, else its resource's name (`/v1/webhooks` → Webhooks). */
export function tagOf(path: string): string {
  const known = TAGS.find((t) => t.match.test(path));
  if (known) return known.name;
  const segments = path.split("/").filter((s) => s && s !== "v1" && !s.startsWith("{"));
  const resource = segments[0] === "tenants" && segments[1] ? segments[1] : (segments[0] ?? "other");
  return resource.charAt(0).toUpperCase() + resource.slice(1).replace(/-(\w)/g, (_, c: string) => ` ${c}`);
}

const BEARER = [{ bearer: [] }];

/** Registers the bearer scheme; call once, before the first `openApiDocument`. */
export function registerSecurity(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key: `Authorization: Bearer <key>`. The platform admin key, or a tenant's key.",
  });
}

export function openApiDocument(app: OpenAPIHono<AppEnv>): Document {
  const doc = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Toolshed",
      version: "1",
      description:
        "Runs AI agents' tool calls for many tenants: a permission engine decides each call, a queue " +
        "and workers run it in the session's own hardened container. See docs/api.md for the contracts.",
    },
    servers: [{ url: "/", description: "this server" }],
  });
  const used = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const op of Object.values(item ?? {}) as Operation[]) {
      if (typeof op !== "object" || op === null || !("responses" in op)) continue;
      op.tags ??= [tagOf(path)];
      op.security ??= path.startsWith("/v1/") ? BEARER : [];
      for (const t of op.tags) used.add(t);
    }
  }
  const described = TAGS.filter((t) => used.has(t.name)).map(({ name, description }) => ({
    name,
    description,
  }));
  const others = [...used].filter((n) => !TAGS.some((t) => t.name === n)).map((name) => ({ name }));
  doc.tags = [...described, ...others];
  return doc;
}

/** `METHOD path` of each operation that lacks an operationId, a summary or a tag. */
export function incompleteOperations(doc: Document): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {}) as [string, Operation][]) {
      if (typeof op !== "object" || op === null || !("responses" in op)) continue;
      if (!op.operationId || !op.summary || !op.tags?.length) out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out;
}
