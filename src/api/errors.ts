/** The one mapping from errors to HTTP problem responses (`{error:{code,message,details?},requestId}`). */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  AppError,
  asSandboxUnavailable,
  asUnavailable,
  ERROR_STATUS,
  type ErrorCode,
  type ErrorDetail,
  UnsupportedMediaTypeError,
} from "../errors.js";
import { type Logger, withLogContext } from "../log.js";

export function problem(
  c: Context,
  code: ErrorCode,
  message: string,
  details?: ErrorDetail[],
  headers?: Record<string, string>,
): Response {
  const requestId = (c.get("requestId") as string | undefined) ?? "";
  const body = { error: { code, message, ...(details?.length ? { details } : {}) }, requestId };
  return c.json(body, ERROR_STATUS[code] as ContentfulStatusCode, headers);
}

/** Known errors keep their code and message; anything else is logged and answered generically. */
export function errorResponse(c: Context, err: unknown, service: Logger): Response {
  // The request's ids on the line, as access-log.ts set them; made only when a line is logged.
  const logger = () => withLogContext(service, { requestId: c.get("requestId"), traceId: c.get("traceId") });
  const known = err instanceof AppError ? err : asUnavailable(err);
  if (known) {
    if (known !== err) logger().warn({ err }, "dependency unavailable");
    const headers = known.retryAfterS ? { "retry-after": String(known.retryAfterS) } : undefined;
    return problem(c, known.code, known.message, known.details, headers);
  }
  const sandboxDown = asSandboxUnavailable(err);
  if (sandboxDown) return problem(c, sandboxDown.code, sandboxDown.message);
  if (err instanceof HTTPException) {
    if (err.status === 413) return problem(c, "PAYLOAD_TOO_LARGE", "request body too large");
    if (err.status === 415) return errorResponse(c, new UnsupportedMediaTypeError(), service);
    if (err.status === 400) return problem(c, "VALIDATION", "malformed request body (expected JSON)");
    if (err.status === 401) return problem(c, "UNAUTHENTICATED", "missing or invalid API key");
  }
  logger().error({ err }, "unhandled error");
  return problem(c, "INTERNAL", "internal error");
}
