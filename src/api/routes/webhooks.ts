/** A tenant's webhook: set, read, remove, and its delivery log. */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { WEBHOOK_EVENTS } from "../../contracts/webhook.js";
import type { WebhookVerbs } from "../../service/api-port.js";
import type { AppEnv } from "../context.js";
import {
  bearer,
  egressRefusedResponse,
  errorResponses,
  json,
  jsonBody,
  PageParams,
  page,
  tooLargeResponse,
} from "../schemas.js";

const Params = z.object({ tid: z.string() });
const Event = z.enum(WEBHOOK_EVENTS);

const WebhookInput = z
  .strictObject({
    url: z
      .string()
      .url()
      .max(2048)
      .refine((u) => /^https?:\/\//.test(u), { error: "must be an http or https URL" }),
    events: z.array(Event).min(1).optional().openapi({ description: "default: every event" }),
    secret: z
      .string()
      .min(16)
      .max(200)
      .optional()
      .openapi({ description: "the signing secret; generated (and shown once) when absent" }),
    rotateSecret: z.boolean().optional().openapi({ description: "generate a new secret (shown once)" }),
    keepPreviousSecretSeconds: z
      .number()
      .int()
      .min(0)
      .max(604_800)
      .optional()
      .openapi({
        description:
          "when this PUT sets or generates a secret: how long the replaced one keeps signing deliveries " +
          "beside it (a second `v1`), so receivers can switch at leisure; default 86400 (a day), at most " +
          "a week; 0 ends it now (a leaked secret)",
      }),
  })
  .openapi("WebhookInput");

const Webhook = z
  .object({
    url: z.string(),
    events: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
    previousSecretExpiresAt: z.string().nullable().openapi({
      description: "until when the secret the last rotation replaced still signs deliveries too (null: none)",
    }),
    secret: z.string().optional().openapi({ description: "only in the answer that generated it" }),
  })
  .openapi("Webhook");

const Delivery = z
  .object({
    id: z.string().openapi({ description: "also the `Toolshed-Delivery` header" }),
    event: z.string(),
    jobId: z.string(),
    url: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    responseCode: z.number().int().nullable(),
    createdAt: z.string(),
    lastAttemptAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
  })
  .openapi("WebhookDelivery");

const put = createRoute({
  method: "put",
  path: "/v1/tenants/{tid}/webhooks",
  operationId: "putWebhook",
  summary: "Set the tenant's webhook",
  security: bearer,
  description:
    "Sets the tenant's webhook (replacing it). Deliveries are POSTs of `{id, event, createdAt, tenantId, data}` " +
    'signed with `Toolshed-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, plus ' +
    "`Toolshed-Event` and `Toolshed-Delivery`; retried with exponential backoff until a 2xx. The URL " +
    "must pass the egress policy (422 otherwise).",
  request: { params: Params, body: jsonBody(WebhookInput) },
  responses: {
    200: json(Webhook, "the webhook; `secret` only when generated"),
    ...egressRefusedResponse,
    ...errorResponses,
    ...tooLargeResponse,
  },
});

const get = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/webhooks",
  operationId: "getWebhook",
  summary: "Read the tenant's webhook",
  security: bearer,
  request: { params: Params },
  responses: { 200: json(Webhook, "the webhook, never its secret"), ...errorResponses },
});

const del = createRoute({
  method: "delete",
  path: "/v1/tenants/{tid}/webhooks",
  operationId: "deleteWebhook",
  summary: "Remove the tenant's webhook",
  security: bearer,
  request: { params: Params },
  responses: { 204: { description: "removed; pending deliveries end failed" }, ...errorResponses },
});

const deliveries = createRoute({
  method: "get",
  path: "/v1/tenants/{tid}/webhooks/deliveries",
  operationId: "listWebhookDeliveries",
  summary: "List webhook deliveries",
  security: bearer,
  description: "The delivery log, newest first: status, attempts, last error and response code.",
  request: {
    params: Params,
    query: PageParams.extend({
      status: z.string().optional().openapi({ description: "pending, delivered or failed" }),
      jobId: z.string().optional(),
    }),
  },
  responses: {
    200: json(page(Delivery).openapi("WebhookDeliveryPage"), "a page of deliveries"),
    ...errorResponses,
  },
});

export function webhookRoutes(app: OpenAPIHono<AppEnv>, hooks: WebhookVerbs): void {
  app.openapi(put, async (c) =>
    c.json(await hooks.put(c.get("principal"), c.req.valid("param").tid, c.req.valid("json")), 200),
  );
  app.openapi(get, async (c) => c.json(await hooks.get(c.get("principal"), c.req.valid("param").tid), 200));
  app.openapi(del, async (c) => {
    await hooks.delete(c.get("principal"), c.req.valid("param").tid);
    return c.body(null, 204);
  });
  app.openapi(deliveries, async (c) =>
    c.json(await hooks.deliveries(c.get("principal"), c.req.valid("param").tid, c.req.valid("query")), 200),
  );
}
