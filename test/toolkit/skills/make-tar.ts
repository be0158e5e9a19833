/** Writes small ustar archives (with GNU long names) for the skill-upload tests. */
import { gzipSync } from "node:zlib";

/** One member to write; `type` is the ustar typeflag ("0" file, "5" dir, "1"/"2" links, "3" char). */
export interface TarMember {
  path: string;
  content?: string | Buffer;
  type?: string;
  mode?: number;
  linkName?: string;
}

/** A gzipped tar of `members`. */
export function makeTarGz(members: TarMember[]): Buffer {
  return gzipSync(makeTar(members));
}

/** An uncompressed tar of `members`. */
export function makeTar(members: TarMember[]): Buffer {
  const blocks: Buffer[] = [];
  for (const m of members) {
    const data = Buffer.from(m.content ?? "");
    if (Buffer.byteLength(m.path) > 100) {
      const name = Buffer.from(`${m.path}\0`);
      blocks.push(header("././@LongLink", name.length, "L", 0o644), pad(name));
    }
    blocks.push(header(m.path.slice(0, 100), data.length, m.type ?? "0", m.mode ?? 0o644, m.linkName));
    if (data.length) blocks.push(pad(data));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

function header(path: string, size: number, type: string, mode: number, linkName = ""): Buffer {
  const h = Buffer.alloc(512);
  h.write(path, 0, 100, "utf8");
  h.write(`${mode.toString(8).padStart(7, "0")}\0`, 100, "latin1");
  h.write("0000000\0", 108, "latin1");
  h.write("0000000\0", 116, "latin1");
  h.write(`${size.toString(8).padStart(11, "0")}\0`, 124, "latin1");
  h.write("00000000000\0", 136, "latin1");
  h.write(type, 156, "latin1");
  h.write(linkName, 157, 100, "utf8");
  h.write("ustar\u000000", 257, "latin1");
  h.fill(32, 148, 156);
  const sum = h.reduce((a, b) => a + b, 0);
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  return h;
}

function pad(data: Buffer): Buffer {
  return Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}
