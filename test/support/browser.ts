/**
 * Debian's Chromium driven by playwright-core (no browser download): headless, no sandbox (tests
 * run as root), and nothing that dials out (sync, component updates, background networking).
 * The profile is a fresh temporary `--user-data-dir`: playwright makes one per launch and removes
 * it on close (it refuses the flag itself, which only `launchPersistentContext` may set).
 */
import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export interface TestBrowser {
  browser: Browser;
  /** A new context (its own cookies) per signed-in user. */
  newContext(opts?: { viewport?: { width: number; height: number } }): Promise<BrowserContext>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: run scripts/services.sh as root (it installs Debian's chromium)`,
    );
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    browser,
    newContext: (opts = {}) =>
      browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 860 } }),
    async close() {
      await browser.close().catch(() => undefined);
    },
  };
}
