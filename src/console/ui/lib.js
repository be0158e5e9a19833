// Shared pieces of the console's pages: the html tag, the API client, loading and live hooks.

import { useCallback, useEffect, useRef, useState } from "/console/assets/vendor/hooks.mjs";
import htm from "/console/assets/vendor/htm.mjs";
import { h } from "/console/assets/vendor/preact.mjs";

export const html = htm.bind(h);

/** What GET /console/session answered: who is signed in and the CSRF token. */
export const session = { current: null };

export class ApiError extends Error {
  constructor(status, body) {
    const err = body?.error ?? {};
    const fields = (err.details ?? []).map((d) => `${d.path}: ${d.message}`).join("; ");
    super(`${err.message ?? `HTTP ${status}`}${fields ? ` (${fields})` : ""}`);
    this.status = status;
    this.code = err.code;
  }
}

/** Calls the /v1 API with the session cookie; every change carries the CSRF token. */
export async function api(method, path, body) {
  const headers = { accept: "application/json" };
  if (method !== "GET") headers["x-csrf-token"] = session.current?.csrfToken ?? "";
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return null;
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    if (res.status === 401) window.dispatchEvent(new CustomEvent("console:signed-out"));
    throw new ApiError(res.status, data);
  }
  return data;
}

/** A query string from the set values of `params`. */
export function qs(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** Loads `fn()` when `deps` change; `reload` runs it again. */
export function useLoad(fn, deps) {
  const [state, setState] = useState({ data: undefined, error: undefined, loading: true });
  const seq = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await fn();
      if (mine === seq.current) setState({ data, error: undefined, loading: false });
    } catch (error) {
      if (mine === seq.current) setState((s) => ({ ...s, error, loading: false }));
    }
  }, deps);
  useEffect(() => {
    reload();
  }, [reload]);
  return { ...state, reload };
}

/** Runs `fn` every `ms` while the page is shown. */
export function useInterval(fn, ms) {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!ms) return undefined;
    const t = setInterval(() => saved.current(), ms);
    return () => clearInterval(t);
  }, [ms]);
}

/** Opens an EventSource (the cookie authenticates it) and hands each named event's JSON to `on`. */
export function useEvents(url, handlers) {
  const saved = useRef(handlers);
  saved.current = handlers;
  const [state, setState] = useState("connecting");
  useEffect(() => {
    if (!url) return undefined;
    const es = new EventSource(url, { withCredentials: true });
    es.onopen = () => setState("live");
    es.onerror = () => setState(es.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
    for (const name of Object.keys(saved.current)) {
      es.addEventListener(name, (e) => {
        let data = null;
        try {
          data = JSON.parse(e.data);
        } catch {}
        saved.current[name]?.(data, es);
      });
    }
    return () => es.close();
  }, [url]);
  return state;
}

/** A submit handler that shows its error and its success message. */
export function useAction() {
  const [state, setState] = useState({ busy: false, error: undefined, message: undefined });
  const run = async (fn, message) => {
    setState({ busy: true, error: undefined, message: undefined });
    try {
      const out = await fn();
      setState({
        busy: false,
        error: undefined,
        message: typeof message === "function" ? message(out) : message,
      });
      return out;
    } catch (error) {
      setState({ busy: false, error, message: undefined });
      return undefined;
    }
  };
  return { ...state, run };
}

export function Status({ error, message }) {
  if (error) return html`<p class="error" role="alert">${error.message}</p>`;
  if (message) return html`<p class="notice" role="status">${message}</p>`;
  return null;
}

export function Loading({ state, children }) {
  if (state.error) return html`<p class="error" role="alert">${state.error.message}</p>`;
  if (state.data === undefined) return html`<p class="muted">Loading…</p>`;
  return children;
}

export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return `${d.toLocaleDateString()} ${d.toLocaleTimeString()}`;
}

/** "4m 05s" (or "1h 00m 00s") until `iso`, or "expired". */
export function remaining(iso, now) {
  const s = Math.floor((Date.parse(iso) - now) / 1000);
  if (!(s > 0)) return "expired";
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const mmss = `${String(m % 60).padStart(2, "0")}m ${String(s % 60).padStart(2, "0")}s`;
  return h > 0 ? `${h}h ${mmss}` : `${m}m ${String(s % 60).padStart(2, "0")}s`;
}

/** A one-line view of a call's input. */
export function brief(input) {
  if (!input) return "";
  if (typeof input.command === "string") return input.command;
  if (typeof input.file_path === "string") return input.file_path;
  if (typeof input.pattern === "string") return input.pattern;
  const s = JSON.stringify(input);
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
}

/** The text of a result's or a chunk's content. */
export function contentText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content == null ? "" : JSON.stringify(content);
  return content.map((c) => (c?.type === "text" ? c.text : JSON.stringify(c))).join("");
}

export function StatusBadge({ status }) {
  return html`<span class=${`badge s-${status}`} data-status=${status}>${status.replaceAll("_", " ")}</span>`;
}

export function navigate(path) {
  history.pushState(null, "", path);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

/** A link that routes inside the page. */
export function Link({ href, children, ...rest }) {
  const click = (e) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(href);
  };
  return html`<a href=${href} onClick=${click} ...${rest}>${children}</a>`;
}
