/**
 * What the API side and the worker side of a file transfer agree on: the reserved tool names of
 * transfer jobs, the job input, where a workspace path may point, and the failure codes a
 * transfer's result carries (`metadata.code`) for the API to answer with.
 */
import { createHash } from "node:crypto";
import { posix } from "node:path";
import { ValidationError } from "../../errors.js";
import { SANDBOX_WORKSPACE } from "../../sandbox/sandbox.js";
import { readTar, type TarEntry, TarFormatError } from "../../toolkit/skills/tar-reader.js";
import { normalizeUploadPath } from "../../toolkit/skills/upload-path.js";

/** Job tool names no tool can take (a tool name cannot contain a dot). */
export const TRANSFER_TOOLS = {
  upload: "workspace.upload",
  download: "workspace.download",
  export: "workspace.export",
  import: "workspace.import",
} as const;

export type TransferKind = keyof typeof TRANSFER_TOOLS;

export function transferKind(tool: string): TransferKind | undefined {
  const entry = Object.entries(TRANSFER_TOOLS).find(([, name]) => name === tool);
  return entry?.[0] as TransferKind | undefined;
}

/** A transfer job's input: never the bytes (they are staged in the TransferStore). */
export interface TransferInput {
  /** The container path of the file (upload, download). */
  path?: string;
  bytes?: number;
  sha256?: string;
  /** Entries in an imported archive. */
  entries?: number;
}

/** Why a transfer failed, as the worker reports it: errno-like codes, or ESCAPE. */
export type TransferCode =
  | "ENOENT"
  | "EISDIR"
  | "ENOTDIR"
  | "EACCES"
  | "EFBIG"
  | "ELOOP"
  | "ENOSPC"
  | "EIO"
  | "ESCAPE";

export class TransferError extends Error {
  constructor(
    readonly code: TransferCode,
    message: string,
  ) {
    super(message);
    this.name = "TransferError";
  }
}

/** True for `/workspace` itself and what lies below it. */
export function insideWorkspace(path: string): boolean {
  return path === SANDBOX_WORKSPACE || path.startsWith(`${SANDBOX_WORKSPACE}/`);
}

/** `raw` (absolute, or relative to /workspace) as a normalized path of a file in the workspace. */
export function workspaceFilePath(raw: string, field = "path"): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point.
  if (raw === "" || /[\u0000-\u001f\u007f]/.test(raw)) {
    throw new ValidationError(`invalid ${field}`, [
      { path: field, message: "must be a non-empty path without control characters" },
    ]);
  }
  const path = posix.normalize(posix.isAbsolute(raw) ? raw : posix.join(SANDBOX_WORKSPACE, raw));
  if (!insideWorkspace(path) || path === SANDBOX_WORKSPACE || path.endsWith("/")) {
    throw new ValidationError(`${field} must name a file in ${SANDBOX_WORKSPACE}`, [
      {
        path: field,
        message: `must be a file path inside ${SANDBOX_WORKSPACE} (got ${JSON.stringify(raw)})`,
      },
    ]);
  }
  return path;
}

/** An archive member that may be extracted: a regular file or directory under /workspace. */
export interface ImportEntry {
  /** The container path. */
  path: string;
  kind: "file" | "directory";
  executable: boolean;
  data: Buffer;
}

/**
 * The archive's members as entries to extract, or a 400 naming every refused member: absolute
 * paths, `..`, links (symbolic or hard), devices and FIFOs never reach the sandbox.
 */
export function importEntries(archive: Buffer): ImportEntry[] {
  let raw: TarEntry[];
  try {
    raw = readTar(archive);
  } catch (err) {
    if (!(err instanceof TarFormatError)) throw err;
    throw new ValidationError("the body is not a tar archive", [{ path: "body", message: err.message }]);
  }
  const problems: { path: string; message: string }[] = [];
  const entries: ImportEntry[] = [];
  raw.forEach((e, i) => {
    // `tar -C dir -cf - .` starts with `./`: the workspace itself, nothing to extract.
    if (e.kind === "directory" && /^\.\/?$/.test(e.path)) return;
    const problem = refusal(e);
    if (problem) {
      problems.push({ path: `entries[${i}]`, message: `${e.path}: ${problem}` });
      return;
    }
    const checked = normalizeUploadPath(e.path);
    if (!checked.ok) {
      problems.push({ path: `entries[${i}]`, message: `${e.path}: ${checked.message}` });
      return;
    }
    entries.push({
      path: `${SANDBOX_WORKSPACE}/${checked.path}`,
      kind: e.kind as ImportEntry["kind"],
      executable: (e.mode & 0o111) !== 0,
      data: e.data,
    });
  });
  if (problems.length > 0)
    throw new ValidationError("the archive has members that cannot be extracted", problems);
  return entries;
}

function refusal(e: TarEntry): string | undefined {
  if (e.kind === "link") return "links (symbolic or hard) are not extracted";
  if (e.kind === "special") return "devices, FIFOs and other special files are refused";
  return undefined;
}

export function sha256Hex(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
