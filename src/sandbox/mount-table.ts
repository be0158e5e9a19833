import { readFile } from "node:fs/promises";

/** The fields of one /proc/self/mountinfo line that the workspace volumes need. */
export interface MountEntry {
  mountPoint: string;
  fsType: string;
  source: string;
}

// mountinfo escapes space, tab, newline and backslash as three octal digits.
const decodeField = (field: string) =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));

/** Parses mountinfo text: `id parent maj:min root mountpoint opts [optional…] - fstype source superopts`. */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-", 6);
    if (dash < 0 || fields.length < dash + 3) continue;
    entries.push({
      mountPoint: decodeField(fields[4] ?? ""),
      fsType: fields[dash + 1] ?? "",
      source: decodeField(fields[dash + 2] ?? ""),
    });
  }
  return entries;
}

/** The mounts of this process's mount namespace. */
export async function readMounts(): Promise<MountEntry[]> {
  return parseMountInfo(await readFile("/proc/self/mountinfo", "utf8"));
}

/** The file behind a loop device (`/dev/loop3`), or null when it is not a bound loop device. */
export async function loopBackingFile(device: string): Promise<string | null> {
  const name = /^\/dev\/(loop[0-9]+)$/.exec(device)?.[1];
  if (!name) return null;
  try {
    const text = (await readFile(`/sys/block/${name}/loop/backing_file`, "utf8")).trimEnd();
    return text.endsWith(" (deleted)") ? null : text;
  } catch {
    return null;
  }
}
