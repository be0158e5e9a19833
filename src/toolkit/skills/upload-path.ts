/**
 * Path rules for files in a skill upload: relative, `/`-separated, no `..`, no control
 * characters; `.` and empty segments are dropped (tar writes `./x`, directories end in `/`).
 */

const MAX_PATH_LENGTH = 255;
/** A file system's limit on one name (NAME_MAX), in bytes: `é` counts two. */
const MAX_SEGMENT_BYTES = 255;

/** The normalized relative path, or why it is refused. */
export type UploadPathCheck = { ok: true; path: string } | { ok: false; message: string };

/** Checks and normalizes one path of an upload. */
export function normalizeUploadPath(raw: string): UploadPathCheck {
  if (raw === "") return { ok: false, message: "Empty path." };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point.
  if (/[\u0000-\u001f\u007f]/.test(raw)) return { ok: false, message: "The path has control characters." };
  if (raw.includes("\\")) return { ok: false, message: "Use '/' as the path separator, not '\\'." };
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) {
    return { ok: false, message: "Absolute paths are not allowed." };
  }
  const segments = raw.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) return { ok: false, message: "Path traversal ('..') is not allowed." };
  const path = segments.join("/");
  if (path === "") return { ok: false, message: "Empty path." };
  if (segments.some((s) => Buffer.byteLength(s, "utf8") > MAX_SEGMENT_BYTES)) {
    return { ok: false, message: `A name in the path is longer than ${MAX_SEGMENT_BYTES} bytes (UTF-8).` };
  }
  if (path.length > MAX_PATH_LENGTH) {
    return { ok: false, message: `The path is longer than ${MAX_PATH_LENGTH} characters.` };
  }
  return { ok: true, path };
}
