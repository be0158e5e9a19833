/**
 * `/docs`: the API reference, rendered by Redoc from the OpenAPI document with the Redoc bundle
 * served by this process (no CDN, no network). The operations are also listed in plain HTML, so
 * the page says something before (or without) JavaScript; Redoc replaces that list when it runs.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

export const REDOC_PATH = "/docs/redoc.standalone.js";

let bundle: string | undefined;

/** The one remote URL in Redoc's bundle: a "by Redocly" logo, hidden by Redoc when it fails to load. */
const REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";

/** Redoc's self-contained browser bundle, from the `redoc` package (read once), with no remote URL. */
export function redocBundle(): string {
  const file = createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js");
  bundle ??= readFileSync(file, "utf8").replaceAll(REDOC_LOGO, "data:,");
  return bundle;
}

/**
 * The page loads nothing from another origin, whatever a schema's text contains, and no other
 * site frames it (it shares its origin with the console's cookie).
 */
export const DOCS_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'";

interface Doc {
  info?: { title?: string; description?: string };
  paths?: object;
}

const esc = (t: string) =>
  t.replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch] ?? ch);

export function docsPage(doc: Doc, specUrl: string): string {
  const ops: string[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, object][]) {
    for (const [method, op] of Object.entries(item) as [
      string,
      { summary?: string; description?: string },
    ][]) {
      if (!op || typeof op !== "object") continue;
      ops.push(
        `<li><b>${method.toUpperCase()}</b> <code>${esc(path)}</code> ${esc(op.summary ?? "")}` +
          `${op.description ? `<br><small>${esc(op.description)}</small>` : ""}</li>`,
      );
    }
  }
  // Inline JSON must not close the script element it sits in.
  const inline = JSON.stringify(doc).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info?.title ?? "API")} API reference</title>
<style>body{margin:0;font:14px system-ui,sans-serif}#fallback{padding:1em 2em;max-width:960px}code{background:#f3f3f3;padding:1px 4px}li{margin:.4em 0}</style>
</head><body>
<div id="redoc"><div id="fallback"><h1>${esc(doc.info?.title ?? "API")} API</h1>
<p>${esc(doc.info?.description ?? "")} Machine-readable: <a href="${specUrl}">${specUrl}</a>.</p>
<ul>${ops.join("\n")}</ul></div></div>
<script id="spec" type="application/json">${inline}</script>
<script src="${REDOC_PATH}"></script>
<script>
Redoc.init(JSON.parse(document.getElementById("spec").textContent), {
  expandResponses: "200,201,202", jsonSampleExpandLevel: 3, pathInMiddlePanel: true, sortTagsAlphabetically: false
}, document.getElementById("redoc"));
</script></body></html>`;
}
