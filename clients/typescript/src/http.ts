/**
 * The one place requests are made: base URL, bearer key, JSON, errors as ToolshedError, and
 * retries that never run a side effect twice.
 */
import { ToolshedError } from "./errors.js";
import { IDEMPOTENT_METHODS, NETWORK_RETRY, RETRY_AFTER_STATUSES } from "./generated/contract.js";

export interface ToolshedOptions {
  /** Where the API listens, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An API key: the platform admin's, a tenant admin's or an agent's. */
  apiKey: string;
  /** A `fetch` to use instead of the global one (proxies, tests). */
  fetch?: typeof fetch;
  /**
   * How many times a request is sent again (default 3; 0: never). Always after a 429 or a 503
   * answer, which the API gives only when it did nothing (a file transfer that made its job but
   * did not run in time is a 504 TRANSFER_PENDING, never sent again); after a failed connection
   * only when sending again cannot do a thing twice: GET, PUT (but a file upload or tar import,
   * which makes a job), DELETE, and a call with an `idempotencyKey`.
   */
  maxRetries?: number;
  /** The longest wait between two tries, in seconds (default 30); `Retry-After` is followed up to it. */
  maxRetryDelay?: number;
}

/** How a request may be sent again. */
export interface RetryPolicy {
  /** A failed connection may be retried: the request is idempotent. */
  afterNetworkError: boolean;
}

/** The policy HTTP's own semantics give a method. */
export function retryPolicyOf(method: string): RetryPolicy {
  return { afterNetworkError: IDEMPOTENT_METHODS.includes(method) };
}

/**
 * The policy the OpenAPI document gives an operation (generated/contract.ts, shared with the
 * Python client); `keyed`: the call carries an idempotency key.
 */
export function retryPolicyFor(operationId: string, keyed = false): RetryPolicy {
  const rule = NETWORK_RETRY[operationId];
  return { afterNetworkError: rule === "always" || (rule === "with_idempotency_key" && keyed) };
}

export class Http {
  private readonly base: string;
  private readonly maxRetries: number;
  private readonly maxDelayMs: number;
  constructor(private readonly opts: ToolshedOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, "");
    this.maxRetries = Math.max(0, opts.maxRetries ?? 3);
    this.maxDelayMs = Math.max(0, (opts.maxRetryDelay ?? 30) * 1000);
  }

  async request<T>(method: string, path: string, body?: unknown, retry?: RetryPolicy): Promise<T> {
    const res = await this.raw(
      method,
      path,
      body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } },
      retry,
    );
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  /** A response with a 2xx status, or a thrown ToolshedError (after the retries the policy allows). */
  async raw(method: string, path: string, init: RequestInit = {}, retry = retryPolicyOf(method)): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${this.opts.apiKey}`);
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await (this.opts.fetch ?? fetch)(this.base + path, { ...init, method, headers });
      } catch (err) {
        if (init.signal?.aborted) throw err;
        if (!retry.afterNetworkError || attempt >= this.maxRetries) throw networkError(method, path, err, retry);
        await this.pause(attempt);
        continue;
      }
      if (res.ok) return res;
      const error = await toError(res);
      if (!RETRY_AFTER_STATUSES.includes(res.status) || attempt >= this.maxRetries) throw error;
      await this.pause(attempt, error.retryAfter);
    }
  }

  /** `Retry-After` when the API gave one, else 0.5 s doubling per try; at most maxRetryDelay. */
  private pause(attempt: number, retryAfter?: number): Promise<void> {
    const ms = Math.min(this.maxDelayMs, retryAfter !== undefined ? retryAfter * 1000 : 500 * 2 ** attempt);
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

async function toError(res: Response): Promise<ToolshedError> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = { error: { code: "HTTP_ERROR", message: text.slice(0, 500) || `HTTP ${res.status}` } };
  }
  const retry = Number(res.headers.get("retry-after"));
  return new ToolshedError(res.status, body as never, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

/** The connection failed: whether the API got the request is unknown, and the error says so. */
function networkError(method: string, path: string, err: unknown, retry: RetryPolicy): ToolshedError {
  const why = err instanceof Error ? err.message : String(err);
  const unsure = retry.afterNetworkError
    ? ""
    : " The API may have received it: for a tool call, send an idempotencyKey so that a retry cannot run it twice.";
  const error = new ToolshedError(0, {
    error: { code: "NETWORK_ERROR", message: `${method} ${path} failed: ${why}.${unsure}` },
  });
  return Object.assign(error, { cause: err });
}

export const enc = encodeURIComponent;

/** `?a=1&b=x` from the defined values (arrays repeated), or "" when none. */
export function queryString(query: Record<string, unknown> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, String(one));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}
