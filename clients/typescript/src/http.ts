/** The one place requests are made: base URL, bearer key, JSON, and errors as ToolshedError. */
import { ToolshedError } from "./errors.js";

export interface ToolshedOptions {
  /** Where the API listens, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An API key: the platform admin's, a tenant admin's or an agent's. */
  apiKey: string;
  /** A `fetch` to use instead of the global one (proxies, tests). */
  fetch?: typeof fetch;
}

export class Http {
  private readonly base: string;
  constructor(private readonly opts: ToolshedOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, "");
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, path, {
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  /** A response with a 2xx status, or a thrown ToolshedError. */
  async raw(method: string, path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${this.opts.apiKey}`);
    const res = await (this.opts.fetch ?? fetch)(this.base + path, { ...init, method, headers });
    if (res.ok) return res;
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: { code: "HTTP_ERROR", message: text.slice(0, 500) || `HTTP ${res.status}` } };
    }
    const retry = Number(res.headers.get("retry-after"));
    throw new ToolshedError(res.status, body as never, Number.isFinite(retry) && retry > 0 ? retry : undefined);
  }
}

export const enc = encodeURIComponent;
