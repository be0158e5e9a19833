/**
 * The console's files: its own (under one folder, no path outside it) and the vendored libraries'
 * (from their npm packages, with bare `from "preact"` imports rewritten to our copy's URL). Read
 * once and kept: they are small and change only with a deploy. Only files found are kept: the
 * names asked for come from anyone, signed in or not, and a miss kept for each would grow without
 * bound.
 */
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

export interface StaticFile {
  /** Every console file is text. */
  body: string;
  type: string;
}

export class StaticFiles {
  private readonly cache = new Map<string, Promise<StaticFile | undefined>>();

  constructor(
    private readonly root: string,
    private readonly vendor: Record<string, { file: string; rewrite?: boolean }>,
    private readonly vendorUrl: string,
  ) {}

  /** `rel` is a URL path below the assets root; undefined when there is no such file. */
  read(rel: string): Promise<StaticFile | undefined> {
    let found = this.cache.get(rel);
    if (!found) {
      found = this.load(rel);
      this.cache.set(rel, found);
      found.then(
        (file) => file ?? this.cache.delete(rel),
        () => this.cache.delete(rel),
      );
    }
    return found;
  }

  /** How many files are kept in memory. */
  get cached(): number {
    return this.cache.size;
  }

  private async load(rel: string): Promise<StaticFile | undefined> {
    if (rel.startsWith("vendor/")) {
      const name = rel.slice("vendor/".length);
      // Not an inherited property (`__proto__`, `constructor`): only the libraries listed.
      const lib = Object.hasOwn(this.vendor, name) ? this.vendor[name] : undefined;
      if (!lib) return undefined;
      let text = await readFile(lib.file, "utf8");
      if (lib.rewrite) text = text.replaceAll(/from\s*"preact"/g, `from"${this.vendorUrl}preact.mjs"`);
      return { body: text, type: TYPES[".mjs"]! };
    }
    const type = TYPES[extname(rel)];
    const path = normalize(join(this.root, rel));
    if (!type || !path.startsWith(this.root + sep)) return undefined;
    try {
      return { body: await readFile(path, "utf8"), type };
    } catch {
      return undefined;
    }
  }
}
