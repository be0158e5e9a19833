/**
 * Kernel settings of the sandbox host that containers cannot set for themselves (host-wide). A
 * worker says which are weak at start (it does not change the host itself; scripts/services.sh
 * does, as root, with the same values).
 */
import { readFileSync } from "node:fs";

/** A setting under /proc/sys/fs, the value that protects, and when the host's value falls short. */
interface Wanted {
  name: string;
  value: string;
  weak: (have: number) => boolean;
}

const INT_MAX = 2 ** 31 - 1;

const WANTED: Wanted[] = [
  // With these at 0 an agent can plant a symlink, fifo or file at a fixed path in a shared sticky
  // directory (`/tmp`, `/dev/shm`) that an MCP server of the same sandbox then opens
  // (NOTES-attack26b). systemd's defaults; minimal hosts and some VMs do not set them.
  { name: "protected_symlinks", value: "1", weak: (have) => have < 1 },
  { name: "protected_hardlinks", value: "1", weak: (have) => have < 1 },
  { name: "protected_regular", value: "2", weak: (have) => have < 2 },
  { name: "protected_fifos", value: "1", weak: (have) => have < 1 },
  // Counters every sandbox draws on (one agent uid for all; NOTES-attack27b). At these values each
  // sandbox's memory cgroup binds first (the kernel charges files, inotify instances and watches,
  // and pipe pages to it). One agent's 128 inotify instances left every other sandbox none, its
  // pipes shrank theirs to 8 KiB; its open files (~275 B each) can reach a file-max of 2.4 M
  // within 1 GiB (then ENFILE for every process without CAP_SYS_ADMIN). file-max: systemd's value.
  { name: "file-max", value: "9223372036854775807", weak: (have) => have < 2 ** 53 },
  { name: "inotify/max_user_instances", value: `${INT_MAX}`, weak: (have) => have < INT_MAX },
  { name: "inotify/max_user_watches", value: `${INT_MAX}`, weak: (have) => have < INT_MAX },
  { name: "pipe-user-pages-soft", value: "0", weak: (have) => have !== 0 },
];

/** `fs.<name>=<value>` for each setting weaker than it should be (unreadable ones are not named). */
export function weakHostSettings(read: (name: string) => string | undefined = readProcSysFs): string[] {
  return WANTED.flatMap(({ name, value, weak }) => {
    const raw = read(name);
    if (raw === undefined) return [];
    const have = Number.parseInt(raw.trim(), 10);
    return Number.isFinite(have) && weak(have) ? [`fs.${name.replaceAll("/", ".")}=${value}`] : [];
  });
}

function readProcSysFs(name: string): string | undefined {
  try {
    return readFileSync(`/proc/sys/fs/${name}`, "utf8");
  } catch {
    return undefined;
  }
}
