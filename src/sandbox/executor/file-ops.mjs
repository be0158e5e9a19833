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

/**
 * Writes `data` to `p`, all or nothing when the disk is full: an existing file keeps its old
 * content whole if the new one does not fit (ENOSPC/EDQUOT), and a new file is not left behind.
 */
export async function writeFile(p, data) {
  await fs.mkdir(path.dirname(p), { recursive: true });
  const old = await fs.stat(p).catch(() => null);
  if (old?.isFile()) {
    await replaceFile(await fs.realpath(p), data, old);
  } else {
    // New (or not a regular file: a FIFO or a device is written to as before).
    try {
      await fs.writeFile(p, data);
    } catch (err) {
      // A new file the disk could not hold (ENOSPC) is not left half-written, filling the disk.
      if (old === null) await fs.rm(p, { force: true }).catch(() => {});
      throw err;
    }
  }
  return { t: "r", stat: await statOrNull(p) };
}

let tmpSeq = 0;

/**
 * Overwrites the regular file `real` (symlinks resolved: a link is written through, as before).
 * Usually: a sibling temporary file with the old mode and group, renamed over the old one, so a
 * reader sees the old content or the new, never a part, and a full disk leaves the old file as it
 * was. A file the rename would change in ways a write does not (another owner, which the agent
 * cannot give the new file; hard links, which would no longer share the content; a directory the
 * agent cannot create in) is written in place instead, its growth reserved first (inPlace).
 */
async function replaceFile(real, data, old) {
  const euid = process.geteuid?.() ?? old.uid;
  if (old.nlink > 1 || old.uid !== euid) return inPlace(real, data);
  const tmp = path.join(path.dirname(real), `.toolshed-write-${process.pid}-${++tmpSeq}.tmp`);
  let fh;
  try {
    fh = await fs.open(tmp, "wx", 0o600);
  } catch (err) {
    if (err.code === "EACCES" || err.code === "EPERM" || err.code === "EROFS") return inPlace(real, data);
    throw err;
  }
  try {
    try {
      await fh.writeFile(data);
      // chown first: it clears set-id bits, which the chmod then puts back.
      if (old.gid !== (await fh.stat()).gid) await fh.chown(-1, old.gid);
      await fh.chmod(old.mode & 0o7777);
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, real);
  } catch (err) {
    await fs.rm(tmp, { force: true }).catch(() => {});
    // A group the agent is not in: keep it by writing in place.
    if (err.code === "EPERM") return inPlace(real, data);
    throw err;
  }
}

/**
 * Overwrites `real` in its own inode. The bytes past the old end are written first: if they do not
 * fit, the file is cut back to its old size with its old content whole. Then the old part is
 * overwritten (its blocks are already allocated on the filesystems a workspace uses) and the rest
 * cut off. A reader may see a mix meanwhile, as with any in-place write.
 */
async function inPlace(real, data) {
  const fh = await fs.open(real, "r+");
  try {
    const size = (await fh.stat()).size;
    if (data.length > size) {
      try {
        await writeAt(fh, data, size);
      } catch (err) {
        await fh.truncate(size).catch(() => {});
        throw err;
      }
    }
    await writeAt(fh, data.subarray(0, Math.min(size, data.length)), 0);
    if (data.length < size) await fh.truncate(data.length);
  } finally {
    await fh.close();
  }
}

/** Writes `data`, from its byte `from` on, at the file's offset `from`. */
async function writeAt(fh, data, from) {
  for (let at = from; at < data.length; ) {
    const { bytesWritten } = await fh.write(data, at, data.length - at, at);
    at += bytesWritten;
  }
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
