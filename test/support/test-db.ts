/**
 * A fresh database per test without running the migrations each time: the first open in a
 * process migrates a template file, every open copies it. `openDb` then finds every migration
 * already applied, so the copy costs a file copy instead of the whole schema.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OpenedDb, openDb } from "../../src/db/open.js";

let template: string | undefined;

function migratedTemplate(): string {
  if (template) return template;
  const dir = mkdtempSync(join(tmpdir(), "tsdb-"));
  const file = join(dir, "template.db");
  // Closing checkpoints the WAL into the file, so copying the file alone copies everything.
  openDb(file).close();
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  template = file;
  return file;
}

/** Opens a new, migrated database at `file` (which must not exist yet). */
export function openTestDb(file: string): OpenedDb {
  copyFileSync(migratedTemplate(), file);
  return openDb(file);
}
