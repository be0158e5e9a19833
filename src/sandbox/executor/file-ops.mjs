// File operations of the executor (see executor.mjs). They run inside the container, so every
// path, symlink and `..` resolves in the sandbox's own filesystem, never the host's.
import { closeSync, constants as fsc, fstatSync, openSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";

export async function readFile(p, maxBytes) {
  const limit = Number.isFinite(maxBytes) ? maxBytes : 64 * 1024 * 1024;
  // Opened for reading only once known to be a regular file, through the O_PATH descriptor's
  // /proc entry (the same inode: a path swapped meanwhile is not followed). O_NONBLOCK still.
  const st = regularFile(p);
  const proc = `/proc/self/fd/${st.fd}`;
  const fh = await fs
    .open(proc, fsc.O_RDONLY | fsc.O_NONBLOCK)
    .catch((err) => {
      // Refused as an open of the path was (EACCES…), naming the path, not the descriptor.
      throw Object.assign(err, { message: String(err.message).replace(proc, p), path: p });
    })
    .finally(() => closeSync(st.fd));
  try {
    if (st.size > limit) throw Object.assign(new Error(`${p} is ${st.size} bytes`), { code: "EFBIG" });
    // Read to EOF rather than trusting st.size: /proc files report 0 and files may grow.
    const chunks = [];
    let total = 0;
    for (;;) {
      const hint = Math.max(st.size - total + 1, 4096);
      const buf = Buffer.allocUnsafe(Math.min(hint, limit + 1 - total, 1 << 20));
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > limit) throw Object.assign(new Error(`${p} exceeds ${limit} bytes`), { code: "EFBIG" });
      chunks.push(buf.subarray(0, bytesRead));
    }
    const data = Buffer.concat(chunks);
    // The resolved path rides along so that callers need no separate realPath round trip.
    const real = await fs.realpath(p).catch(() => null);
    return { t: "r", data: data.toString("base64"), size: data.length, mtimeMs: st.mtimeMs, realPath: real };
  } finally {
    await fh.close();
  }
}

/** Linux's O_PATH (not in Node's constants): a descriptor that names a file without opening it. */
const O_PATH = 0o10000000;

/**
 * The path's file, looked at through an O_PATH descriptor: no open of its own, so a FIFO's
 * writer is not woken and a device's driver not called, even for a read whose answer is then
 * thrown away. Throws unless it is a regular file; the caller closes `fd`. Synchronous: an O_PATH
 * open and an fstat do no I/O of the file's, and two thread-pool hops fewer per read.
 */
function regularFile(p) {
  const fd = openSync(p, O_PATH);
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw Object.assign(new Error(`${p} is a directory`), { code: "EISDIR" });
    if (!st.isFile()) throw Object.assign(new Error(`${p} is not a regular file`), { code: "EIO" });
    return { fd, size: st.size, mtimeMs: st.mtimeMs };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

export async function writeFile(p, data) {
  await fs.mkdir(path.dirname(p), { recursive: true });
  const existed = (await statOrNull(p)) !== null;
  try {
    await fs.writeFile(p, data);
  } catch (err) {
    // A new file the disk could not hold (ENOSPC) is not left half-written, filling the disk.
    if (!existed) await fs.rm(p, { force: true }).catch(() => {});
    throw err;
  }
  return { t: "r", stat: await statOrNull(p) };
}

export async function statOrNull(p) {
  try {
    const st = await fs.lstat(p);
    const type = st.isFile()
      ? "file"
      : st.isDirectory()
        ? "directory"
        : st.isSymbolicLink()
          ? "symlink"
          : "other";
    return { type, size: st.size, mtimeMs: st.mtimeMs };
  } catch (err) {
    if (err.code === "ENOENT" || err.code === "ENOTDIR") return null;
    throw err;
  }
}

/** realpath; a missing leaf resolves its parent (recursively) and keeps the basename. */
export async function realPath(p) {
  try {
    return await fs.realpath(p);
  } catch (err) {
    const parent = path.dirname(p);
    if (err.code !== "ENOENT" || parent === p) throw err;
    return path.join(await realPath(parent), path.basename(p));
  }
}
