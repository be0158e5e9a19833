/** Every non-2xx answer of the API, typed: the stable `code`, the HTTP `status`, the failing `field`. */
import type { ErrorBody } from "./types.js";

export class ToolshedError extends Error {
  override readonly name = "ToolshedError";
  /** Stable error code: VALIDATION, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, CONFLICT, RATE_LIMITED, … */
  readonly code: string;
  readonly status: number;
  /** The first failing field (`details[0].path`), e.g. `tool` or `input.command`, when the API names one. */
  readonly field: string | undefined;
  readonly details: { path: string; message: string }[];
  readonly requestId: string | undefined;
  /** Seconds to wait before retrying (429, 503), from `Retry-After`. */
  readonly retryAfter: number | undefined;

  constructor(status: number, body: Partial<ErrorBody> | undefined, retryAfter?: number) {
    const error = body?.error;
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code ?? (status >= 500 ? "INTERNAL" : "HTTP_ERROR");
    this.details = error?.details ?? [];
    this.field = this.details[0]?.path;
    this.requestId = body?.requestId;
    this.retryAfter = retryAfter;
  }
}
