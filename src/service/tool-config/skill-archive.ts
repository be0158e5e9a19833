/**
 * A skill's files as one value for the database: gzipped JSON of `{path, executable, content}`
 * (content in base64), named by the SHA-256 of those bytes. Workers on any host unpack it into
 * their local cache (skill-files.ts); the bytes never change for a given name, so neither does a
 * cached directory.
 */
import { createHash } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { DEFAULT_SKILL_UPLOAD_LIMITS, type SkillFile } from "../../toolkit/skills/skill-upload.js";
import { normalizeUploadPath } from "../../toolkit/skills/upload-path.js";

/**
 * The bound on one skill's unpacked archive: the upload limit on file content, plus room for
 * base64 and per-file JSON. A larger value in the database is refused, not written to disk.
 */
export const MAX_SKILL_ARCHIVE_JSON_BYTES =
  Math.ceil((DEFAULT_SKILL_UPLOAD_LIMITS.maxTotalBytes * 4) / 3) + DEFAULT_SKILL_UPLOAD_LIMITS.maxFiles * 512;

interface Entry {
  path: string;
  executable: boolean;
  content: string;
}

export interface SkillArchive {
  archive: Buffer;
  sha256: string;
}

export function packSkill(files: readonly SkillFile[]): SkillArchive {
  const entries: Entry[] = files.map((f) => ({
    path: f.path,
    executable: f.executable,
    content: f.content.toString("base64"),
  }));
  const json = Buffer.from(JSON.stringify(entries));
  if (json.length > MAX_SKILL_ARCHIVE_JSON_BYTES)
    throw new Error(`a skill archive of ${json.length} bytes exceeds ${MAX_SKILL_ARCHIVE_JSON_BYTES}`);
  // mtime 0 in the gzip header (Node's default): the same files give the same bytes and hash.
  const archive = gzipSync(json);
  return { archive, sha256: sha256Of(archive) };
}

/** The files of an archive; paths are checked again, since they become paths on the host. */
export function unpackSkill(archive: Buffer): SkillFile[] {
  const json = gunzipSync(archive, { maxOutputLength: MAX_SKILL_ARCHIVE_JSON_BYTES }).toString("utf8");
  const entries = JSON.parse(json) as Entry[];
  if (!Array.isArray(entries)) throw new Error("a skill archive holds a list of files");
  return entries.map((e) => {
    const checked = normalizeUploadPath(String(e.path));
    if (!checked.ok || checked.path !== e.path)
      throw new Error(`a skill archive names a bad path ${JSON.stringify(e.path)}`);
    return { path: e.path, executable: e.executable === true, content: Buffer.from(e.content, "base64") };
  });
}

export function sha256Of(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
