/**
 * `/docs` as a reader sees it: headless Chromium (when the machine has it) loads the page with
 * every request outside this server refused, and Redoc renders the operations, schemas and
 * examples from the locally served bundle. The screenshot goes to DOCS_SCREENSHOT (or a temp file).
 */
import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentationApp } from "../../src/cli/openapi.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
let server: ReturnType<typeof serve>;
let base: string;

beforeAll(async () => {
  const app = documentationApp();
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server?.close());

describe("/docs", () => {
  it("serves the page and the Redoc bundle without naming another host", async () => {
    const page = await (await fetch(`${base}/docs`)).text();
    expect(page).not.toMatch(/(src|href)="https?:/);
    expect(page).toContain('<script src="/docs/redoc.standalone.js">');
    // Readable before JavaScript runs: the operations in plain HTML.
    expect(page).toContain("<b>POST</b> <code>/v1/sessions/{sid}/calls</code> Submit a tool call");
    const js = await fetch(`${base}/docs/redoc.standalone.js`);
    expect(js.headers.get("content-type")).toContain("javascript");
    expect((await js.text()).length).toBeGreaterThan(500_000);
  });

  it.skipIf(!existsSync(CHROMIUM))("renders with Redoc in headless Chromium with no network", async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const refused: string[] = [];
      await page.route("**/*", (route) => {
        if (route.request().url().startsWith(base) || route.request().url().startsWith("data:")) {
          return route.continue();
        }
        refused.push(route.request().url());
        return route.abort();
      });
      await page.goto(`${base}/docs#tag/Calls/operation/submitCall`);
      await page.waitForSelector("[data-section-id='operation/submitCall']", { timeout: 30_000 });
      // Playwright's innerText (not the DOM's): what is rendered, without the inline document's text.
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point here
      const body = await page.innerText("body");
      expect(body).toContain("Submit a tool call");
      expect(body).toContain("Stream a job's events (SSE)");
      // Schemas and samples: the request body's fields and a response sample.
      expect(body).toContain("idempotencyKey");
      expect(body).toMatch(/Response samples/i);
      expect(refused).toEqual([]);
      await page.screenshot({ path: process.env.DOCS_SCREENSHOT ?? join(tmpdir(), "toolshed-docs.png") });
    } finally {
      await browser.close();
    }
  });
});
