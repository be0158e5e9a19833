/**
 * A small, strict reader for `.tar.gz` skill uploads: ustar plus GNU long names and pax `path`
 * records. Only regular files and directories are returned; links, devices and FIFOs are
 * reported as entries of their own kind so the validator can reject them by path.
 */
import { gunzipSync } from "node:zlib";

/** One archive member. */
export interface TarEntry {
  path: string;
  kind: "file" | "directory" | "link" | "special";
  mode: number;
  data: Buffer;
}

/** The archive is not a well-formed (gzipped) tar, or it inflates past the limit. */
export class TarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TarFormatError";
  }
}

const BLOCK = 512;

/** Inflates at most `maxBytes` and parses the tar inside. */
export function readTarGz(archive: Buffer, maxBytes: number): TarEntry[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(archive, { maxOutputLength: maxBytes });
  } catch (error) {
    const tooBig = (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
    throw new TarFormatError(
      tooBig
        ? `The archive inflates to more than ${maxBytes} bytes.`
        : "The upload is not a valid gzip file.",
    );
  }
  return readTar(tar);
}

/** Parses an uncompressed tar. */
export function readTar(tar: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    verifyChecksum(header, offset);
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 0);
    const start = offset + BLOCK;
    if (start + size > tar.length) throw new TarFormatError("The archive is truncated.");
    const data = tar.subarray(start, start + size);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "L") {
      longName = cString(data);
      continue;
    }
    if (type === "x") {
      longName = paxPath(data) ?? longName;
      continue;
    }
    if (type === "g") continue;
    const path = longName ?? headerPath(header);
    longName = undefined;
    entries.push({ path, kind: kindOf(type), mode: octal(header, 100, 8), data: Buffer.from(data) });
  }
  return entries;
}

function kindOf(type: string): TarEntry["kind"] {
  if (type === "0" || type === "\0" || type === "7") return "file";
  if (type === "5") return "directory";
  if (type === "1" || type === "2" || type === "K") return "link";
  return "special";
}

function headerPath(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const isUstar = header.subarray(257, 262).toString("latin1") === "ustar";
  const prefix = isUstar ? cString(header.subarray(345, 500)) : "";
  return prefix ? `${prefix}/${name}` : name;
}

function verifyChecksum(header: Buffer, offset: number): void {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
  if (sum !== octal(header, 148, 8)) throw new TarFormatError(`Bad tar header checksum at byte ${offset}.`);
}

function octal(buf: Buffer, at: number, len: number): number {
  const text = cString(buf.subarray(at, at + len)).trim();
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError("The archive has a malformed numeric header field.");
  return Number.parseInt(text, 8);
}

function cString(buf: Buffer): string {
  const nul = buf.indexOf(0);
  return buf.subarray(0, nul < 0 ? buf.length : nul).toString("utf8");
}

/** The `path` record of a pax extended header (`"<len> path=<value>\n"` records). */
function paxPath(data: Buffer): string | undefined {
  let path: string | undefined;
  for (const record of data.toString("utf8").split("\n")) {
    const m = /^\d+ ([^=]+)=(.*)$/s.exec(record);
    if (m?.[1] === "path") path = m[2];
  }
  return path;
}
