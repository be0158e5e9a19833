/**
 * Validation of a tenant's skill upload (docs/toolkit.md#the-services-skills): a JSON map of files or
 * a `.tar.gz`, checked for size, file count, path traversal, links and SKILL.md front matter.
 * Every problem is reported, each with the path it concerns ("" for the upload as a whole).
 */
import { checkSkillMeta, MAX_SKILL_DESCRIPTION_LENGTH } from "./skill-meta.js";
import { readTarGz, TarFormatError } from "./tar-reader.js";
import { normalizeUploadPath } from "./upload-path.js";

/** Upload limits; the defaults suit instructions plus a few scripts. */
export interface SkillUploadLimits {
  maxTotalBytes: number;
  maxFiles: number;
  maxDescriptionLength: number;
}

/** The default limits: 1 MiB of file content, 200 files, 1,024-character descriptions. */
export const DEFAULT_SKILL_UPLOAD_LIMITS: SkillUploadLimits = {
  maxTotalBytes: 1024 * 1024,
  maxFiles: 200,
  maxDescriptionLength: MAX_SKILL_DESCRIPTION_LENGTH,
};

/** One file of a validated skill; paths are relative, normalized, `/`-separated. */
export interface SkillFile {
  path: string;
  content: Buffer;
  executable: boolean;
}

/** A validated upload, ready for the service to store. */
export interface ValidatedSkill {
  name: string;
  description: string;
  /** The SKILL.md body, trimmed. */
  markdown: string;
  /** Sorted by path; SKILL.md included. */
  files: SkillFile[];
}

/** One problem with an upload. */
export interface SkillUploadError {
  path: string;
  message: string;
}

/** Either the normalized skill or every problem found. */
export type SkillUploadResult =
  | { ok: true; skill: ValidatedSkill }
  | { ok: false; errors: SkillUploadError[] };

type RawFile = { path: string; content: Buffer; executable: boolean; kind: "file" | "directory" };

/** Validates a JSON file map (`{"SKILL.md": "...", "scripts/x.py": "..."}`) or a `.tar.gz`. */
export function validateSkillUpload(
  upload: Record<string, unknown> | Buffer,
  limits: SkillUploadLimits = DEFAULT_SKILL_UPLOAD_LIMITS,
): SkillUploadResult {
  const errors: SkillUploadError[] = [];
  const raw = Buffer.isBuffer(upload) ? fromArchive(upload, limits, errors) : fromMap(upload, errors);
  const files = normalize(raw, errors);
  if (files.length > limits.maxFiles) {
    errors.push({ path: "", message: `Too many files: ${files.length} (at most ${limits.maxFiles}).` });
  }
  const total = files.reduce((n, f) => n + f.content.length, 0);
  if (total > limits.maxTotalBytes) {
    errors.push({
      path: "",
      message: `The skill is too big: ${total} bytes (at most ${limits.maxTotalBytes}).`,
    });
  }
  const meta = checkSkillMd(files, limits, errors);
  if (errors.length || !meta) return { ok: false, errors };
  return { ok: true, skill: { ...meta, files: files.sort((a, b) => (a.path < b.path ? -1 : 1)) } };
}

function fromMap(map: Record<string, unknown>, errors: SkillUploadError[]): RawFile[] {
  const out: RawFile[] = [];
  for (const [path, content] of Object.entries(map)) {
    if (typeof content !== "string") errors.push({ path, message: "File content must be a string." });
    else out.push({ path, content: Buffer.from(content, "utf8"), executable: false, kind: "file" });
  }
  return out;
}

function fromArchive(archive: Buffer, limits: SkillUploadLimits, errors: SkillUploadError[]): RawFile[] {
  // Headers and padding add up to 1 KiB per member on top of the content limit.
  const inflateLimit = limits.maxTotalBytes + (limits.maxFiles + 16) * 1024 * 2;
  try {
    const out: RawFile[] = [];
    for (const e of readTarGz(archive, inflateLimit)) {
      if (e.kind === "link")
        errors.push({ path: e.path, message: "Links (symbolic or hard) are not allowed." });
      else if (e.kind === "special")
        errors.push({ path: e.path, message: "Only regular files are allowed." });
      else out.push({ path: e.path, content: e.data, executable: (e.mode & 0o111) !== 0, kind: e.kind });
    }
    return out;
  } catch (error) {
    if (!(error instanceof TarFormatError)) throw error;
    errors.push({ path: "", message: error.message });
    return [];
  }
}

/** Normalizes paths, drops directories, rejects bad and duplicate paths, strips one wrapper dir. */
function normalize(raw: RawFile[], errors: SkillUploadError[]): SkillFile[] {
  const files: SkillFile[] = [];
  const seen = new Set<string>();
  for (const f of raw) {
    if (f.kind === "directory" && /^(\.\/?)?$/.test(f.path)) continue; // `./`, the archive's root
    const checked = normalizeUploadPath(f.path);
    if (!checked.ok) errors.push({ path: f.path, message: checked.message });
    else if (f.kind === "file" && seen.has(checked.path)) {
      errors.push({ path: f.path, message: "Duplicate path." });
    } else if (f.kind === "file") {
      seen.add(checked.path);
      files.push({ path: checked.path, content: f.content, executable: f.executable });
    }
  }
  for (const path of fileDirConflicts(files)) {
    errors.push({ path, message: "The path is both a file and a directory." });
  }
  return stripWrapperDir(files);
}

/** Paths that are files and also parents of other files: they cannot be written to disk. */
function fileDirConflicts(files: SkillFile[]): string[] {
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.path.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  return files.filter((f) => dirs.has(f.path)).map((f) => f.path);
}

/** `tar czf x.tar.gz my-skill/` puts everything under one directory: take its contents. */
function stripWrapperDir(files: SkillFile[]): SkillFile[] {
  if (files.some((f) => f.path === "SKILL.md")) return files;
  const top = files[0]?.path.split("/")[0];
  if (!top || !files.every((f) => f.path.startsWith(`${top}/`))) return files;
  if (!files.some((f) => f.path === `${top}/SKILL.md`)) return files;
  return files.map((f) => ({ ...f, path: f.path.slice(top.length + 1) }));
}

function checkSkillMd(
  files: SkillFile[],
  limits: SkillUploadLimits,
  errors: SkillUploadError[],
): Omit<ValidatedSkill, "files"> | undefined {
  const file = files.find((f) => f.path === "SKILL.md");
  const fail = (message: string) => errors.push({ path: "SKILL.md", message });
  if (!file) return void fail("SKILL.md is required at the root of the skill.");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(file.content);
  } catch {
    return void fail("SKILL.md must be UTF-8 text.");
  }
  const checked = checkSkillMeta(text, limits.maxDescriptionLength);
  if (checked.ok) return checked.meta;
  for (const problem of checked.problems) fail(problem);
  return undefined;
}
